"""The OpenStackClient plugin: ``openstack site ...`` commands.

The site API is served beside the bare metal API's /v1, so the client
finds it from the ``baremetal`` endpoint (the service catalog, or
``--os-endpoint`` with ``--os-auth-type none``).
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from osc_lib import exceptions
from osc_lib import utils

from ironside.osc import client as site_client

if TYPE_CHECKING:
    from osc_lib import clientmanager

API_NAME = 'site'
API_VERSION_OPTION = 'os_site_api_version'
API_VERSIONS = {'1': 'ironside.osc.client.SiteClient'}
DEFAULT_API_VERSION = '1'


def make_client(instance: clientmanager.ClientManager
                ) -> site_client.SiteClient:
    endpoint = instance.get_endpoint_for_service_type(
        'baremetal', region_name=instance.region_name,
        interface=instance.interface)
    if endpoint is None:
        raise exceptions.CommandError(
            'No baremetal endpoint: the service catalog has none for this '
            'region and interface; give one with --os-endpoint')
    return site_client.SiteClient(instance.session, endpoint)


def build_option_parser(parser: argparse.ArgumentParser
                        ) -> argparse.ArgumentParser:
    parser.add_argument(
        '--os-site-api-version', metavar='<site-api-version>',
        default=utils.env('OS_SITE_API_VERSION',
                          default=DEFAULT_API_VERSION),
        help='Site API version, default=%s (Env: OS_SITE_API_VERSION)'
             % DEFAULT_API_VERSION)
    return parser
