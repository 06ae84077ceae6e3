"""The ``openstack site`` plugin's client: made from the baremetal
endpoint the client manager finds."""

from __future__ import annotations

from typing import Any

import pytest
from osc_lib import exceptions

from ironside.osc import plugin


class _Instance:
    """The few attributes of osc_lib's ClientManager that make_client
    reads. A stand-in: a real ClientManager needs a keystone catalog,
    and one without a baremetal endpoint is the fault tested here."""

    region_name = 'RegionOne'
    interface = 'public'
    session = None

    def __init__(self, endpoint: str | None) -> None:
        self.endpoint = endpoint

    def get_endpoint_for_service_type(self, service_type: str,
                                      **_kwargs: Any) -> str | None:
        assert service_type == 'baremetal'
        return self.endpoint


def test_client_on_the_baremetal_endpoint() -> None:
    client = plugin.make_client(_Instance('http://bm.example:6385'))
    assert client.base == 'http://bm.example:6385/site/v1'


def test_no_baremetal_endpoint_is_a_command_error() -> None:
    with pytest.raises(exceptions.CommandError) as raised:
        plugin.make_client(_Instance(None))
    assert 'No baremetal endpoint' in str(raised.value)
