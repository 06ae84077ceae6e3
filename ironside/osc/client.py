"""A small HTTP client of the site API, on a keystoneauth session."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING
from typing import Any
from urllib.parse import quote

from osc_lib import exceptions

if TYPE_CHECKING:
    import requests
    from keystoneauth1 import session as ks_session

# Where the site API is mounted beside /v1.
SITE_PATH = '/site/v1'


def site_base(baremetal_endpoint: str) -> str:
    """The site API's base URL from the bare metal endpoint."""
    base = (baremetal_endpoint or '').rstrip('/')
    if base.endswith('/v1'):
        base = base[:-len('/v1')]
    return base + SITE_PATH


def _fault(response: requests.Response) -> str:
    """The message of an error answered in Ironic's format."""
    try:
        body = response.json()
        return json.loads(body['error_message'])['faultstring']
    except (ValueError, KeyError, TypeError):
        return response.text or response.reason or 'unknown error'


class SiteClient:
    def __init__(self, session: ks_session.Session, endpoint: str) -> None:
        self.session = session
        self.base = site_base(endpoint)

    def _request(self, method: str, path: str, **kwargs) -> Any:
        response = self.session.request(self.base + path, method,
                                        raise_exc=False, **kwargs)
        if response.status_code >= 400:
            raise exceptions.CommandError('%s (HTTP %d)' % (
                _fault(response), response.status_code))
        if response.status_code == 204 or not response.content:
            return None
        return response.json()

    def validate_strategy(self, text: str, name: str) -> dict:
        """Validate a strategy from file ``name``, which errors name."""
        return self._request('POST', '/strategies/validate',
                             json={'document': text, 'name': name})

    def create_strategy(self, text: str, name: str | None = None) -> dict:
        body = {'document': text}
        if name:
            body['name'] = name
        return self._request('POST', '/strategies', json=body)

    def list_strategies(self) -> list[dict]:
        return self._request('GET', '/strategies')['strategies']

    def get_strategy(self, name: str) -> dict:
        return self._request('GET', '/strategies/%s' % name)

    def delete_strategy(self, name: str) -> None:
        self._request('DELETE', '/strategies/%s' % name)

    def create_action(self, action: str, strategy: str | None = None,
                      parameters: dict | None = None,
                      documents: list | None = None,
                      access: dict | None = None) -> dict:
        body: dict[str, Any] = {'action': action}
        for name, value in (('strategy', strategy), ('parameters', parameters),
                            ('documents', documents), ('access', access)):
            if value:
                body[name] = value
        return self._request('POST', '/actions', json=body)

    def list_tasks(self, documents: list | None = None,
                   start: str | None = None, end: str | None = None,
                   version: str | None = None) -> list[dict]:
        """Tasks of the documents, or of a design version."""
        params = {k: v for k, v in (('start_task', start),
                                    ('end_task', end),
                                    ('version', version)) if v}
        if documents:
            return self._request('POST', '/tasks', params=params or None,
                                 json={'documents': documents})['tasks']
        return self._request('GET', '/tasks',
                             params=params or None)['tasks']

    def validate_task_graphs(self, documents: list[dict]) -> dict:
        """Validate documents (``{"name": FILE, "document": TEXT}``)
        together."""
        return self._request('POST', '/tasks/validate',
                             json={'documents': documents})

    def list_actions(self, **query: Any) -> list[dict]:
        """Actions, filtered, sorted and paged by the API's query
        (``state``, ``action``, ``revision``, ``sort_key``, ``sort_dir``,
        ``marker``, ``limit``); those not given are left out."""
        params = {k: v for k, v in query.items() if v is not None}
        return self._request('GET', '/actions',
                             params=params or None)['actions']

    def get_action(self, uuid: str) -> dict:
        return self._request('GET', '/actions/%s' % uuid)

    def abort_action(self, uuid: str) -> dict:
        return self._request('POST', '/actions/%s/abort' % quote(
            uuid, safe=''))

    def node_status(self, params: dict[str, Any]) -> list[dict]:
        return self._request('GET', '/nodes/status',
                             params=params)['nodes']

    def filter_nodes(self, selectors: list[dict],
                     revision: str | None = None) -> list[dict]:
        body: dict[str, Any] = {'selectors': selectors}
        if revision is not None:
            body['revision'] = revision
        return self._request('POST', '/nodes/filter', json=body)['nodes']

    # Designs

    def stage_collection(self, collection: str,
                         sources: list[tuple[str, str]],
                         empty: bool = False) -> dict:
        body: dict[str, Any] = {'sources': [{'name': name, 'text': text}
                                            for name, text in sources]}
        if empty:
            body['empty'] = True
        return self._request('POST', '/designs/buffer/%s' % quote(
            collection, safe=''), json=body)

    def get_buffer(self) -> dict:
        return self._request('GET', '/designs/buffer')

    def discard_buffer(self) -> None:
        self._request('DELETE', '/designs/buffer')

    def commit_design(self, force: bool = False,
                      dry_run: bool = False) -> dict:
        return self._request('POST', '/designs/commit', json={
            'force': force, 'dry_run': dry_run})

    def design_documents(self, version: str | None = None,
                         collection: str | None = None) -> dict:
        params = {k: v for k, v in (('version', version),
                                    ('collection', collection)) if v}
        return self._request('GET', '/designs/documents', params=params)

    def rendered_design(self, version: str | None = None) -> dict:
        params = {'version': version} if version else None
        return self._request('GET', '/designs/rendered', params=params)

    def design_diff(self, base: str | None = None,
                    new: str | None = None) -> dict:
        params = {k: v for k, v in (('base-version', base),
                                    ('diff-version', new)) if v}
        return self._request('GET', '/designs/diff', params=params)

    def list_revisions(self) -> list[dict]:
        return self._request('GET', '/revisions')['revisions']

    def get_revision(self, revision: str) -> dict:
        return self._request('GET', '/revisions/%s' % quote(
            str(revision), safe=''))
