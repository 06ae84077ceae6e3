"""What the site API's resources share: answers and their values."""

from __future__ import annotations

import datetime
from typing import Any

import falcon

from ironside.common import exception


def send(resp: falcon.Response, body: Any,
         status: str = falcon.HTTP_200) -> None:
    """A JSON answer; typed explicitly, as the main application leaves
    answers untyped by default."""
    resp.status = status
    resp.content_type = falcon.MEDIA_JSON
    resp.media = body


def isotime(value: datetime.datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def json_body(req: falcon.Request) -> dict[str, Any]:
    """The request's JSON object; InvalidParameterValue otherwise."""
    body = req.get_media(default_when_empty=None)
    if not isinstance(body, dict):
        raise exception.InvalidParameterValue(
            err='The request body must be a JSON object')
    return body


def document_source(body: dict[str, Any]) -> str | dict:
    """The body's ``document``: YAML or JSON text, or a JSON object."""
    source = body.get('document')
    if source in (None, ''):
        raise exception.MissingParameterValue(
            err='The request body needs "document"')
    if not isinstance(source, (str, dict)):
        raise exception.InvalidParameterValue(
            err='"document" must be YAML or JSON text, or a JSON object')
    return source
