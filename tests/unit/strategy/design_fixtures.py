"""Design documents for the tests: the example design, and helpers."""

from __future__ import annotations

import yaml

from ironside.strategy.designs import store
from ironside.strategy.reader.documents import Source
from tests.unit.strategy.conftest import EXAMPLES

DESIGN = EXAMPLES / 'design'


def source(path) -> Source:
    return Source(path.name, path.read_text())


def text(*documents: dict) -> str:
    return yaml.safe_dump_all(documents, sort_keys=False)


def stage(collection: str, *documents: dict, name: str = 'input.yaml'):
    return store.stage(collection, [Source(name, text(*documents))])


def stage_example() -> None:
    """The example design, in the walk-through's three collections."""
    store.stage('site', [source(DESIGN / 'deployment-configuration.yaml'),
                         source(EXAMPLES / 'deployment-strategy.yaml')])
    store.stage('nodes', [source(DESIGN / 'nodes.yaml')])
    store.stage('config', [source(DESIGN / 'site-config.yaml')])


def node(name: str, **data) -> dict:
    values = {'rack': 'rack01', 'tags': ['compute'],
              'driver': 'fake-hardware',
              'driver_info': {'fake_password': 'node-secret'}}
    values.update(data)
    return {'schema': 'ironside/BaremetalNode/v1',
            'metadata': {'schema': 'metadata/Document/v1', 'name': name},
            'data': values}


def config(name: str, data, **metadata) -> dict:
    return {'schema': 'ironside/Config/v1',
            'metadata': dict(metadata, name=name), 'data': data}


def strategy(name: str = 'deployment-strategy', groups=None) -> dict:
    return {'schema': 'ironside/DeploymentStrategy/v1',
            'metadata': {'name': name},
            'data': {'groups': groups if groups is not None else [
                {'name': 'all', 'critical': True, 'depends_on': [],
                 'selectors': []}]}}


def configuration(strategy_name: str | None = 'deployment-strategy',
                  name: str = 'deployment-configuration') -> dict:
    provisioner = {} if strategy_name is None else {
        'deployment_strategy': strategy_name}
    return {'schema': 'ironside/DeploymentConfiguration/v1',
            'metadata': {'name': name},
            'data': {'physical_provisioner': provisioner}}
