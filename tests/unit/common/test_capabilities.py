"""One parser and one writer of Ironic's capabilities."""

from __future__ import annotations

from ironside.common import capabilities


def test_parse_text_and_mapping():
    assert capabilities.parse('boot_mode:uefi, disk_label:gpt,flag') == {
        'boot_mode': 'uefi', 'disk_label': 'gpt', 'flag': ''}
    assert capabilities.parse({'boot_mode': 'bios'}) == {'boot_mode': 'bios'}
    assert capabilities.parse(None) == {} == capabilities.parse('')


def test_format_round_trips():
    text = capabilities.format({'boot_mode': 'uefi', 'secure_boot': 'true'})
    assert text == 'boot_mode:uefi,secure_boot:true'
    assert capabilities.parse(text) == {'boot_mode': 'uefi',
                                        'secure_boot': 'true'}


def test_with_default_keeps_what_is_set_and_the_form():
    assert capabilities.with_default('a:1', 'boot_mode', 'uefi') == \
        'a:1,boot_mode:uefi'
    assert capabilities.with_default('boot_mode:bios', 'boot_mode',
                                     'uefi') == 'boot_mode:bios'
    assert capabilities.with_default(None, 'boot_mode', 'uefi') == \
        'boot_mode:uefi'
    assert capabilities.with_default({'a': '1'}, 'boot_mode', 'uefi') == {
        'boot_mode': 'uefi', 'a': '1'}


def test_lookup_in_order_skipping_empty():
    instance = {'capabilities': {'boot_mode': ''}}
    node = {'capabilities': 'boot_mode:bios'}
    assert capabilities.lookup('boot_mode', instance, node) == 'bios'
    assert capabilities.lookup('boot_mode', {'capabilities': 'boot_mode:uefi'},
                               node) == 'uefi'
    assert capabilities.lookup('disk_label', None, node) is None
