"""Event subscriptions of a Redfish BMC's EventService, as Ironic's
redfish vendor methods manage them: what a subscription may ask for,
and creating, reading, listing and deleting them."""

from __future__ import annotations

from typing import Any
from urllib import parse

from sushy import exceptions as sushy_exceptions

from ironside.common import exception

# The fields of a subscription shown to API users (Ironic's).
SHOWN_FIELDS = ('Id', 'Context', 'Protocol', 'Destination', 'EventTypes')


def payload_of(args: dict[str, Any]) -> dict[str, Any]:
    """The subscription to create, with Redfish's defaults."""
    payload = {'Destination': args.get('Destination'),
               'Protocol': args.get('Protocol', 'Redfish'),
               'Context': args.get('Context', ''),
               'EventTypes': args.get('EventTypes', ['Alert'])}
    if args.get('HttpHeaders'):
        payload['HttpHeaders'] = args['HttpHeaders']
    return payload


def check_payload(args: dict[str, Any]) -> None:
    """400 for arguments no BMC would take (without asking the BMC)."""
    for name in ('Context', 'Protocol'):
        if not isinstance(args.get(name, ''), str):
            raise exception.InvalidParameterValue(
                err='%s %s is not a valid string' % (name, args[name]))
    headers = args.get('HttpHeaders')
    if headers is not None and not isinstance(headers, list):
        raise exception.InvalidParameterValue(
            err='HttpHeaders %s is not a list of headers' % headers)
    types = args.get('EventTypes')
    if types is not None and not (isinstance(types, list) and all(
            isinstance(t, str) for t in types)):
        raise exception.InvalidParameterValue(
            err='EventTypes %s is not a list of event types' % (types,))
    destination = args.get('Destination')
    parsed = parse.urlsplit(destination) \
        if isinstance(destination, str) else None
    if parsed is None or not parsed.scheme or not parsed.hostname:
        raise exception.InvalidParameterValue(
            err='Destination %s is not a valid URI' % destination)


def check_event_types(root: Any, types: list[str] | None) -> None:
    """400 unless the BMC offers every one of ``types``."""
    if types is None:
        return
    offered = {t.value for t in
               root.get_event_service().get_event_types_for_subscription()}
    if not set(types) <= offered:
        raise exception.InvalidParameterValue(
            err='EventTypes %s is not a valid value, allowed values %s'
                % (types, sorted(offered)))


def shown(subscription: Any) -> dict[str, Any]:
    return {k: v for k, v in subscription.json.items() if k in SHOWN_FIELDS}


def _member(root: Any, bmc_id: str, node: str) -> Any:
    collection = root.get_event_service().subscriptions
    separator = '' if collection.path.endswith('/') else '/'
    try:
        return collection.get_member(collection.path + separator + bmc_id)
    except sushy_exceptions.ResourceNotFoundError:
        raise exception.SubscriptionNotFound(id=bmc_id, node=node) from None


def create(root: Any, payload: dict[str, Any]) -> dict[str, Any]:
    return shown(root.get_event_service().subscriptions.create(payload))


def get(root: Any, bmc_id: str, node: str) -> dict[str, Any]:
    return shown(_member(root, bmc_id, node))


def delete(root: Any, bmc_id: str, node: str) -> None:
    _member(root, bmc_id, node).delete()


def list_all(root: Any) -> dict[str, Any]:
    """The BMC's subscription collection, as it shows it."""
    collection = root.get_event_service().subscriptions
    return dict(collection.json)
