"""Vendor methods as drivers declare them: the :func:`passthru` and
:func:`driver_passthru` decorators and what they record.

A vendor interface's method decorated with :func:`passthru` is called
through ``/v1/nodes/{node}/vendor_passthru?method=NAME`` with the node's
task; one decorated with :func:`driver_passthru` through
``/v1/drivers/{driver}/vendor_passthru?method=NAME`` with the request
context, on the hardware type's default vendor interface. The request's
JSON body comes as keyword arguments, plus ``http_method``.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from collections.abc import Iterable
from typing import Any

from ironside.common import exception

LOG = logging.getLogger(__name__)

VendorMethod = Callable[..., Any]

HTTP_METHODS = ('GET', 'PUT', 'POST', 'PATCH', 'DELETE')
# Attribute names the decorators set on a method.
NODE_ATTR = '_vendor_metadata'
DRIVER_ATTR = '_driver_metadata'


def _http_methods(func: VendorMethod, http_methods: Iterable[str]
                  ) -> list[str]:
    if isinstance(http_methods, str):
        http_methods = [http_methods]
    upper = [str(m).upper() for m in http_methods]
    unknown = [m for m in upper if m not in HTTP_METHODS]
    if not upper or unknown:
        raise exception.InvalidParameterValue(
            err='vendor method %s: HTTP methods must be among %s, not %s'
                % (func.__name__, ', '.join(HTTP_METHODS), upper))
    return upper


def _declare(attr: str, http_methods: Iterable[str], method: str | None,
             async_call: bool, description: str | None, attach: bool,
             lock: bool | None) -> Callable[[VendorMethod], VendorMethod]:
    def decorator(func: VendorMethod) -> VendorMethod:
        name = method or func.__name__
        metadata: dict[str, Any] = {
            'http_methods': _http_methods(func, http_methods),
            'async': bool(async_call), 'description': description or '',
            'attach': bool(attach)}
        if lock is not None:
            metadata['require_exclusive_lock'] = bool(lock)

        @functools.wraps(func)
        def handler(*args: Any, **kwargs: Any) -> Any:
            # Logged here: an asynchronous call has nobody to tell.
            try:
                return func(*args, **kwargs)
            except exception.IronsideException:
                LOG.exception('vendor_passthru failed with method %s', name)
                raise
            except Exception as exc:
                LOG.exception('vendor_passthru failed with method %s', name)
                raise exception.VendorPassthruException(err=str(exc) or
                    type(exc).__name__) from exc
        # Decorators stack (a method may be a step too): keep the others'.
        setattr(handler, attr, (name, metadata))
        return handler
    return decorator


def passthru(http_methods: Iterable[str], method: str | None = None,
             async_call: bool = True, description: str | None = None,
             attach: bool = False, require_exclusive_lock: bool = True
             ) -> Callable[[VendorMethod], VendorMethod]:
    """Mark a vendor interface method as a node vendor method, called as
    ``func(task, http_method=..., **body)``.

    :param http_methods: the HTTP methods it answers (GET, POST, ...).
    :param method: its name in the API (the function's name if None).
    :param async_call: run in a worker after the API answered 202 (the
        return value is dropped) rather than answer 200 with it. A method
        that talks to the BMC should be asynchronous.
    :param description: what it does, for the method listing.
    :param attach: answer with the returned string or bytes as the raw
        body instead of as JSON.
    :param require_exclusive_lock: lock the node (before validation, and
        while a synchronous method runs); False for read-only methods.
    """
    return _declare(NODE_ATTR, http_methods, method, async_call,
                    description, attach, require_exclusive_lock)


def driver_passthru(http_methods: Iterable[str], method: str | None = None,
                    async_call: bool = True, description: str | None = None,
                    attach: bool = False
                    ) -> Callable[[VendorMethod], VendorMethod]:
    """Mark a vendor interface method as a driver vendor method, called
    as ``func(context, http_method=..., **body)`` with no node and no
    lock: it should be short. Parameters as for :func:`passthru`."""
    return _declare(DRIVER_ATTR, http_methods, method, async_call,
                    description, attach, None)


def collect(cls: type, attr: str) -> dict[str, tuple[str, dict[str, Any]]]:
    """API name -> (attribute name, metadata) of ``cls``'s methods
    marked with ``attr`` (:data:`NODE_ATTR` or :data:`DRIVER_ATTR`)."""
    found: dict[str, tuple[str, dict[str, Any]]] = {}
    for attr_name in dir(cls):
        member = getattr(cls, attr_name, None)
        declared = getattr(member, attr, None)
        if callable(member) and declared is not None:
            name, metadata = declared
            found[name] = (attr_name, metadata)
    return found
