"""The sample configuration in the tree is the one the code generates."""

from __future__ import annotations

import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[3]


def test_sample_config_is_current(tmp_path):
    output = tmp_path / 'ironside.conf.sample'
    subprocess.run(
        [sys.executable, '-m', 'oslo_config.generator', '--config-file',
         str(ROOT / 'tools/config/ironside-config-generator.conf'),
         '--output-file', str(output)], check=True, cwd=ROOT)
    committed = (ROOT / 'etc/ironside/ironside.conf.sample').read_text()
    assert output.read_text() == committed, (
        'etc/ironside/ironside.conf.sample is stale; regenerate it with '
        '"tox -e genconfig"')
