"""What the site API's resources share with /v1: answers, bodies, policy.

Answers and bodies go through :mod:`ironside.api.wire` (the body size
limit, strict JSON, no NUL characters), bodies are checked against JSON
schemas with :mod:`ironside.api.schemas`, and errors are answered in
Ironic's format by the application's handlers, as for /v1.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable
from typing import Any
from typing import TypeVar

import falcon

from ironside.api import policy
from ironside.api import schemas
from ironside.api import wire

# What a Falcon hook decorates: a responder or a resource class.
Responder = TypeVar('Responder')


def send(resp: falcon.Response, body: Any,
         status: int = 200) -> None:
    """A JSON answer, as /v1 answers."""
    wire.send(resp, body, status)


def isotime(value: datetime.datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def json_body(req: falcon.Request, name: str, schema: dict
              ) -> dict[str, Any]:
    """The request's JSON body, checked against ``schema`` (named
    ``name`` in errors); an empty body is an empty object."""
    return schemas.validate(name, wire.read_json(req, {}), schema)


def allow(rule: str) -> Callable[[Responder], Responder]:
    """A Falcon hook: 403 unless the caller passes policy ``rule``."""
    def _hook(req: falcon.Request, resp: falcon.Response, resource: object,
              params: dict[str, Any]) -> None:
        policy.authorize(rule, req.context.ctx)
    return falcon.before(_hook)
