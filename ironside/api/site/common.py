"""What the site API's resources share: answers and their values."""

from __future__ import annotations

import datetime
from typing import Any

import falcon


def send(resp: falcon.Response, body: Any,
         status: str = falcon.HTTP_200) -> None:
    """A JSON answer; typed explicitly, as the main application leaves
    answers untyped by default."""
    resp.status = status
    resp.content_type = falcon.MEDIA_JSON
    resp.media = body


def isotime(value: datetime.datetime | None) -> str | None:
    return value.isoformat() if value is not None else None
