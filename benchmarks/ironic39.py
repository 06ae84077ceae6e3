"""Ironic 39 from PyPI, run the way the benchmark runs Ironside.

The first use creates a virtualenv with ``ironic==39.0.0`` under
``benchmarks/.venv-ironic39/`` (gitignored; about 40 s and 300 MB) and later
runs reuse it. Each run gets a fresh state directory with an ``ironic.conf``
for the all-in-one ``ironic`` command (API embedded in the conductor, one
process tree):

- ``rpc_transport = none`` and ``auth_strategy = noauth``, API on a free
  loopback port;
- SQLite in the state directory, schema made by ``ironic-dbsync
  create_schema``;
- ``fake-hardware`` with every interface the fake one (network: ``noop``),
  each also the default for new nodes;
- ``[conductor] automated_clean = true`` (Ironic's default, as Ironside's): a
  node runs automated cleaning on provide and on undeploy. With these
  interfaces the one automated clean step is the fake vendor interface's
  ``log_passthrough`` (priority 1); Ironside runs its fake deploy interface's
  ``erase_devices_metadata`` (priority 99): one instant step each.
- ``[dhcp] dhcp_provider = none``: no Neutron.

Everything else keeps Ironic's defaults (``[api] max_limit = 1000``, INFO
logging to a file, 300 conductor workers).

In the split shapes (``servers.SHAPES``) the same file configures
``ironic-conductor`` and ``ironic-api`` (its default number of API
workers) as Ironic's installation guide has them: a PostgreSQL database,
and ``rpc_transport = json-rpc`` (the conductor serving JSON-RPC at its
host name, ``[json_rpc] port``) or ``oslo`` over a RabbitMQ virtual host.

To deploy real machines with the agent (``agent_options``, for
benchmarks/agent_deploy.py) it is configured as Ironic's standalone and
iPXE installation guides say (doc/source/install/standalone/configure.rst,
configure-pxe.rst): one hardware type with its real interfaces, ``ipxe``
boot and ``direct`` deploy; ``[deploy] http_root`` / ``http_url`` served
by a web server of the harness; ``[service_catalog] endpoint_override``,
the API's URL the agent is told (no Keystone); the TFTP, image cache and
certificate directories under the state directory. The ``[agent]``,
``[pxe]``, ``[redfish]`` and ``[conductor]`` timings keep their defaults.

Usage on its own, to build the virtualenv or poke at a running server::

    python -m benchmarks.ironic39 --install
    python -m benchmarks.ironic39 --serve
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import time
from pathlib import Path

from benchmarks import servers

VERSION = '39.0.0'
# With SQLAlchemy's default PostgreSQL driver, for the split shapes.
REQUIREMENTS = ['ironic==%s' % VERSION, 'psycopg2-binary']
VENV = Path(__file__).resolve().parent / '.venv-ironic39'
# Written last by install(), so an interrupted install is redone.
MARKER = VENV / '.installed'


def install(python: str = sys.executable) -> Path:
    """The virtualenv's bin directory, after creating it if needed."""
    bin_dir = VENV / 'bin'
    wanted = '\n'.join(REQUIREMENTS) + '\n'
    if MARKER.exists() and MARKER.read_text() == wanted:
        return bin_dir
    print('Installing %s into %s (once)...' % (' '.join(REQUIREMENTS),
                                                VENV),
          file=sys.stderr, flush=True)
    subprocess.run([python, '-m', 'venv', '--clear', str(VENV)], check=True)
    subprocess.run([str(bin_dir / 'pip'), 'install', '--quiet']
                   + REQUIREMENTS, check=True)
    MARKER.write_text(wanted)
    return bin_dir


class Ironic39Server(servers.Server):
    """The all-in-one ``ironic`` command of Ironic 39."""

    name = 'ironic39'
    deploy_step_line = re.compile(
        r"^(?P<time>\S+ \S+) \d+ INFO ironic\.conductor\.deployments .*"
        r"Executing \{'step': '(?P<step>\w+)'.*'interface': 'deploy'\} "
        r"on node (?P<node>[0-9a-f-]{36})")

    def prepare(self) -> None:
        self.bin_dir = install()
        self.config_path = self.state_dir / 'ironic.conf'
        sections = self.common_sections(
            'none', {'firmware': 'fake', 'network': 'noop',
                     'storage': 'fake'}, 'ironic.sqlite')
        sections['dhcp'] = {'dhcp_provider': 'none'}
        sections['oslo_concurrency'] = {'lock_path': self.state_dir / 'locks'}
        servers.write_ini(self.config_path,
                          servers.merge_sections(sections, self.options))
        servers.run_checked([str(self.bin_dir / 'ironic-dbsync'),
                             '--config-file', str(self.config_path),
                             'create_schema'],
                            self.state_dir / 'dbsync.log')

    def command(self) -> list[str]:
        return [str(self.bin_dir / 'ironic'), '--config-file',
                str(self.config_path)]

    def split_commands(self) -> list[list[str]]:
        config = ['--config-file', str(self.config_path)]
        return [[str(self.bin_dir / 'ironic-conductor')] + config,
                [str(self.bin_dir / 'ironic-api')] + config]

    def version(self) -> str:
        return VERSION

    def agent_options(self, hardware_type: str, boot_url: str
                      ) -> servers.Sections:
        power = {'redfish': 'redfish', 'ipmi': 'ipmitool'}[hardware_type]
        interfaces = {'boot': 'ipxe', 'deploy': 'direct', 'power': power,
                      'management': power, 'console': 'no-console',
                      'inspect': 'no-inspect', 'bios': 'no-bios',
                      'raid': 'no-raid', 'rescue': 'no-rescue',
                      'vendor': 'no-vendor', 'firmware': 'no-firmware',
                      'network': 'noop', 'storage': 'noop'}
        # Every interface named: the common configuration's fakes go.
        default: dict[str, object] = dict(
            servers.interface_options(interfaces))
        default['enabled_hardware_types'] = hardware_type
        state = self.state_dir
        return {
            'DEFAULT': default,
            'deploy': {'http_root': self.boot_root, 'http_url': boot_url},
            'service_catalog': {'endpoint_override': self.base_url},
            'pxe': {'tftp_root': state / 'tftpboot',
                    'tftp_master_path': state / 'tftpboot' / 'master_images',
                    'images_path': state / 'images',
                    'instance_master_path': state / 'master_images'},
            'agent': {'certificates_path': state / 'certificates',
                      'deploy_logs_local_path': state / 'deploy_logs'},
        }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument('--install', action='store_true',
                       help='Create the virtualenv if it is missing.')
    group.add_argument('--serve', action='store_true',
                       help='Start a server, print its URL, stop on Ctrl-C.')
    args = parser.parse_args(argv)
    if args.install:
        print(install())
        return
    with Ironic39Server(keep_state=True) as server:
        print('%s serving at %s, state in %s' % (
            server.name, server.base_url, server.state_dir), flush=True)
        try:
            while server.process.poll() is None:
                time.sleep(1)
        except KeyboardInterrupt:
            pass


if __name__ == '__main__':
    main()
