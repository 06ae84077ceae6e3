"""GET /openapi.json: the OpenAPI description of this API.

The document lives beside this module (``openapi.yaml``); a unit test
checks it names exactly the routes the application serves.
"""

from __future__ import annotations

import functools
import json
import os

import falcon
import yaml

from ironside.api import wire

PATH = os.path.join(os.path.dirname(__file__), 'openapi.yaml')


@functools.lru_cache(maxsize=1)
def document() -> dict:
    with open(PATH, encoding='utf-8') as stream:
        return yaml.safe_load(stream)


@functools.lru_cache(maxsize=1)
def _encoded() -> bytes:
    return json.dumps(document()).encode()


class OpenApi:
    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        wire.query(req, {})
        resp.content_type = falcon.MEDIA_JSON
        resp.data = _encoded()


def register(app: falcon.App, rpcapi) -> None:
    app.add_route('/openapi.json', OpenApi())
