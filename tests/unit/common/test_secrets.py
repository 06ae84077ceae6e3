"""One answer to "is this a secret?", for every view, log and report."""

from __future__ import annotations

from ironside.common import inspection_rules
from ironside.common import secrets


def test_values_of_keys_naming_a_secret_word_are_masked_at_any_depth():
    shown = secrets.mask_secrets({
        'ipmi_password': 'p', 'IPMI_PASSWD': 'p', 'sys_pswd': 'p',
        'chap_secret': 's', 'auth_token': 't', 'snmp_auth_key': 'k',
        'ssh_passphrase': 'p', 'bmc_credential': 'c', 'empty_key': '',
        'nested': [{'token': 't', 'address': '192.0.2.1'}],
        'username': 'admin'})
    assert shown == {
        'ipmi_password': '******', 'IPMI_PASSWD': '******',
        'sys_pswd': '******', 'chap_secret': '******',
        'auth_token': '******', 'snmp_auth_key': '******',
        'ssh_passphrase': '******', 'bmc_credential': '******',
        'empty_key': '',
        'nested': [{'token': '******', 'address': '192.0.2.1'}],
        'username': 'admin'}


def test_instance_info_masks_the_config_drive_and_image_url_too():
    assert secrets.mask_instance_info({
        'configdrive': 'H4sI', 'image_url': 'http://i?temp_url_sig=x',
        'image_source': 'http://i', 'deploy_token': 't'}) == {
        'configdrive': '******', 'image_url': '******',
        'image_source': 'http://i', 'deploy_token': '******'}
    assert secrets.mask_instance_info(None) == {}


def test_inspection_rules_see_the_same_secrets_masked():
    """Rules read the inventory through a view that hides exactly what
    every answer hides (as '***', Ironic's mask for rules)."""
    inventory = inspection_rules.Masked(
        {'bmc_password': 'p', 'bmc_secret': 's', 'bmc_address': '192.0.2.1',
         'interfaces': [{'auth_token': 't', 'name': 'eth0'}]})
    assert inventory['bmc_password'] == inventory['bmc_secret'] == '***'
    assert inventory['bmc_address'] == '192.0.2.1'
    assert inventory['interfaces'][0]['auth_token'] == '***'
    assert inventory['interfaces'][0]['name'] == 'eth0'
