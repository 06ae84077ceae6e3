"""etc/ironside/policy.yaml.sample is what the generator writes today."""

from __future__ import annotations

import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))


def test_policy_sample_is_fresh(tmp_path):
    output = tmp_path / 'policy.yaml.sample'
    generator = os.path.join(os.path.dirname(sys.executable),
                             'oslopolicy-sample-generator')
    subprocess.run([generator, '--namespace', 'ironside', '--output-file',
                    str(output)], check=True, cwd=ROOT, capture_output=True)
    with open(os.path.join(ROOT, 'etc', 'ironside',
                           'policy.yaml.sample')) as stream:
        committed = stream.read()
    assert output.read_text() == committed, (
        'Regenerate with: oslopolicy-sample-generator --config-file '
        'tools/config/ironside-policy-generator.conf')
