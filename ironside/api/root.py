"""GET / and GET /v1: what API this is and which versions it speaks.

No authentication is needed for these (keystoneauth reads them to
discover the service).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import falcon

from ironside.api import links
from ironside.api import versions
from ironside.api import wire

if TYPE_CHECKING:
    from ironside.conductor.rpcapi import ConductorAPI

DOCS_URL = ('https://docs.openstack.org/ironic/latest/contributor/'
            'webapi.html')

# Collections linked from /v1 (and the microversion that added each);
# only resources Ironside serves.
V1_RESOURCES = (
    ('chassis', versions.MIN_MINOR),
    ('nodes', versions.MIN_MINOR),
    ('ports', versions.MIN_MINOR),
    ('drivers', versions.MIN_MINOR),
    ('portgroups', versions.PORTGROUPS),
    ('volume', versions.VOLUME),
    ('conductors', versions.CONDUCTORS),
    ('allocations', versions.ALLOCATIONS),
    ('deploy_templates', versions.DEPLOY_TEMPLATES),
    ('shards', versions.NODE_SHARD),
)


def version_document(base: str) -> dict:
    return {
        'id': 'v1',
        'links': [links.make('self', base, 'v1/', bookmark=True)],
        'status': 'CURRENT',
        'min_version': versions.MIN_VERSION_STRING,
        'version': versions.MAX_VERSION_STRING,
    }


class Root:
    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        base = req.context.public_url
        wire.send(resp, {
            'name': 'OpenStack Ironic API',
            'description': 'Ironside speaks the OpenStack Ironic API to '
                           'provision and manage bare metal machines.',
            'default_version': version_document(base),
            'versions': [version_document(base)],
        })

    on_head = on_get


class V1:
    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        base = req.context.public_url
        version = req.context.version
        document = {
            'id': 'v1',
            'links': [
                links.make('self', base, 'v1/', bookmark=True),
                {'href': DOCS_URL, 'rel': 'describedby',
                 'type': 'text/html'},
            ],
            'media_types': {
                'base': 'application/json',
                'type': 'application/vnd.openstack.ironic.v1+json',
            },
            'version': version_document(base),
        }
        for name, minor in V1_RESOURCES:
            if version.allows(minor):
                document[name] = links.self_and_bookmark(base, name)
        wire.send(resp, document)

    on_head = on_get


def register(app: falcon.App, rpcapi: ConductorAPI) -> None:
    app.add_route('/', Root())
    app.add_route('/v1', V1())
