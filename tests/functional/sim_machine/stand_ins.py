"""What stands for Ironic around the simulated machines in their own
tests: the ramdisk API the agent talks to, the boot files Ironic's
``ipxe`` and ``redfish-virtual-media`` boot interfaces would write, a
config drive, and a client for the agent's command API.

The boot files follow Ironic's layout under ``[deploy]http_root``:
``boot.ipxe`` chains ``pxelinux.cfg/<mac-with-hyphens>`` for each NIC, a
link to ``<node>/config``, whose ``deploy`` label loads
``<node>/deploy_kernel`` with the agent's kernel parameters and
``<node>/deploy_ramdisk`` (retrying as Ironic's does). The scripts here
are written for these tests, in that shape.
"""

from __future__ import annotations

import base64
import gzip
import http.server
import json
import os
import pathlib
import secrets
import shutil
import subprocess
import tempfile
import threading
import time
import urllib.parse

import requests

API_VERSION = '1.68'

BOOT_SCRIPT = """#!ipxe
# One NIC after the other, its configuration by MAC address.
set netid:int32 -1
:next_nic
inc netid || chain pxelinux.cfg/${mac:hexhyp} || goto no_config
isset ${net${netid}/mac} || goto no_config
echo Booting from ${net${netid}/mac:hexhyp}
chain pxelinux.cfg/${net${netid}/mac:hexhyp} || goto next_nic
exit 0

:no_config
echo No boot configuration for this machine.
prompt --timeout 100
reboot
"""

NODE_SCRIPT = """#!ipxe
set tries:int32 3
set try:int32 0
goto deploy

:deploy
imgfree
kernel {http_url}/{node}/deploy_kernel selinux=0 text {append} \
BOOTIF=${{mac}} initrd=deploy_ramdisk || goto again
initrd {http_url}/{node}/deploy_ramdisk || goto again
boot

:again
iseq ${{try}} ${{tries}} && goto give_up ||
inc try
sleep 1
goto deploy

:give_up
poweroff

:boot_whole_disk
sanboot --no-describe || exit 0
"""


def write_ipxe_boot(http_root: pathlib.Path, http_url: str, node: str,
                    macs: list[str], kernel: pathlib.Path,
                    ramdisk: pathlib.Path, append: str,
                    label: str = 'deploy') -> None:
    """The boot files of one node, booting its ``label``: ``deploy`` (the
    agent) or ``boot_whole_disk``."""
    (http_root / 'pxelinux.cfg').mkdir(parents=True, exist_ok=True)
    (http_root / node).mkdir(exist_ok=True)
    (http_root / 'boot.ipxe').write_text(BOOT_SCRIPT)
    script = NODE_SCRIPT.format(http_url=http_url, node=node,
                                append=append)
    script = script.replace('goto deploy\n', 'goto %s\n' % label, 1)
    (http_root / node / 'config').write_text(script)
    shutil.copyfile(kernel, http_root / node / 'deploy_kernel')
    shutil.copyfile(ramdisk, http_root / node / 'deploy_ramdisk')
    for mac in macs:
        link = http_root / 'pxelinux.cfg' / mac.replace(':', '-')
        link.unlink(missing_ok=True)
        link.symlink_to(os.path.join('..', node, 'config'))


def make_boot_iso(path: pathlib.Path, kernel: pathlib.Path,
                  ramdisk: pathlib.Path, cmdline: str) -> pathlib.Path:
    """A virtual media ISO as Ironic makes one for UEFI: the kernel and
    ramdisk at its root, ``boot/grub/grub.cfg`` with the kernel line."""
    with tempfile.TemporaryDirectory() as tree:
        root = pathlib.Path(tree)
        shutil.copyfile(kernel, root / 'vmlinuz')
        shutil.copyfile(ramdisk, root / 'initrd')
        (root / 'boot' / 'grub').mkdir(parents=True)
        (root / 'boot' / 'grub' / 'grub.cfg').write_text(
            'set default=0\nset timeout=5\n\n'
            'menuentry "boot_partition" {\n'
            '    linuxefi /vmlinuz %s --\n'
            '    initrdefi /initrd\n'
            '}\n' % cmdline)
        subprocess.run(['xorriso', '-as', 'mkisofs', '-r', '-V',
                        'VMEDIA_BOOT_ISO', '-o', str(path), str(root)],
                       check=True, capture_output=True, timeout=120)
    return path


def make_config_drive(meta_data: dict) -> str:
    """A config drive as Nova and metalsmith send one: ISO 9660 labelled
    config-2, gzipped, base64."""
    with tempfile.TemporaryDirectory() as tree:
        root = pathlib.Path(tree) / 'root'
        latest = root / 'openstack' / 'latest'
        latest.mkdir(parents=True)
        (latest / 'meta_data.json').write_text(json.dumps(meta_data))
        iso = pathlib.Path(tree) / 'config-drive.iso'
        subprocess.run(['xorriso', '-as', 'mkisofs', '-r', '-J', '-V',
                        'config-2', '-o', str(iso), str(root)],
                       check=True, capture_output=True, timeout=120)
        return base64.b64encode(gzip.compress(iso.read_bytes())).decode()


class RamdiskAPI:
    """Ironic's ramdisk API, as far as the agent uses it: ``GET /``
    (version 1.68), ``GET /v1/lookup`` by MAC (a token of 43 characters
    the first time, ``******`` afterwards, as Ironic), ``POST
    /v1/heartbeat/{node}`` and ``POST /v1/continue_inspection``,
    recording each with its time."""

    def __init__(self) -> None:
        self.nodes: dict[str, dict] = {}
        self.lookups: list[dict] = []
        self.heartbeats: list[dict] = []
        self.inspections: list[dict] = []
        self._server: http.server.ThreadingHTTPServer | None = None
        self._lock = threading.Lock()

    def add_node(self, uuid: str, macs: list[str],
                 heartbeat_timeout: int = 300) -> None:
        self.nodes[uuid] = {'uuid': uuid, 'macs': [m.lower() for m in macs],
                            'token': secrets.token_urlsafe(32),
                            'heartbeat_timeout': heartbeat_timeout,
                            'token_given': False}

    def power_cycled(self, uuid: str) -> None:
        """A new token for the node's next lookup, as Ironic makes one
        when it powers a node off or reboots it."""
        with self._lock:
            self.nodes[uuid].update(token=secrets.token_urlsafe(32),
                                    token_given=False)

    @property
    def url(self) -> str:
        return 'http://127.0.0.1:%d' % self._server.server_port

    def last_heartbeat(self, node: str) -> dict | None:
        with self._lock:
            found = [beat for beat in self.heartbeats if beat['node'] == node]
        return found[-1] if found else None

    def start(self) -> RamdiskAPI:
        api = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def _reply(self, status: int, body: dict) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header('Content-Type', 'application/json')
                self.send_header('Content-Length', str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                parsed = urllib.parse.urlparse(self.path)
                if parsed.path == '/':
                    return self._reply(200, {'default_version': {
                        'id': 'v1', 'version': API_VERSION,
                        'min_version': '1.1', 'status': 'CURRENT'}})
                if parsed.path == '/v1/lookup':
                    query = urllib.parse.parse_qs(parsed.query)
                    return self._reply(*api._lookup(query))
                self._reply(404, {'error_message': 'not found'})

            def do_POST(self) -> None:
                length = int(self.headers.get('Content-Length') or 0)
                body = json.loads(self.rfile.read(length) or b'{}')
                path = urllib.parse.urlparse(self.path).path
                if path.startswith('/v1/heartbeat/'):
                    node = path.rsplit('/', 1)[1]
                    with api._lock:
                        api.heartbeats.append(dict(body, node=node,
                                                   time=time.time()))
                    self.send_response(202)
                    self.send_header('Content-Length', '0')
                    self.end_headers()
                    return None
                if path == '/v1/continue_inspection':
                    with api._lock:
                        api.inspections.append(dict(body, time=time.time()))
                    return self._reply(202, {})
                self._reply(404, {'error_message': 'not found'})

        self._server = http.server.ThreadingHTTPServer(('127.0.0.1', 0),
                                                       Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever,
                         daemon=True).start()
        return self

    def _lookup(self, query: dict) -> tuple[int, dict]:
        addresses = {mac.lower() for value in query.get('addresses', [])
                     for mac in value.split(',') if mac}
        with self._lock:
            self.lookups.append({'addresses': sorted(addresses),
                                 'time': time.time()})
            for node in self.nodes.values():
                if addresses & set(node['macs']):
                    token = '******' if node['token_given'] \
                        else node['token']
                    node['token_given'] = True
                    return 200, {
                        'node': {'uuid': node['uuid'], 'properties': {},
                                 'instance_info': {},
                                 'driver_internal_info': {}},
                        'config': {'heartbeat_timeout':
                                   node['heartbeat_timeout'],
                                   'agent_token': token,
                                   'agent_token_required': True}}
        return 404, {'error_message': 'Node not found'}

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()


class AgentClient:
    """The conductor's side of the agent's command API: commands to the
    heartbeat's ``callback_url`` with ``?agent_token=``, verified with the
    certificate the agent sent."""

    def __init__(self, heartbeat: dict, token: str,
                 directory: pathlib.Path) -> None:
        self.url = heartbeat['callback_url'].rstrip('/')
        self.token = token
        self.verify: str | bool = True
        if heartbeat.get('agent_verify_ca'):
            ca = directory / ('agent-ca-%s.pem' % urllib.parse.urlparse(
                self.url).port)
            ca.write_text(heartbeat['agent_verify_ca'])
            self.verify = str(ca)

    def command(self, name: str, params: dict | None = None,
                wait: bool = True, timeout: float = 300) -> dict:
        response = requests.post(
            self.url + '/v1/commands/',
            params={'wait': str(wait).lower(), 'agent_token': self.token},
            json={'name': name, 'params': params or {}},
            verify=self.verify, timeout=timeout)
        response.raise_for_status()
        return response.json()

    def run(self, name: str, params: dict | None = None,
            timeout: float = 120) -> dict:
        """An asynchronous command, its result once it is done."""
        result = self.command(name, params, wait=False)
        deadline = time.monotonic() + timeout
        while result['command_status'] == 'RUNNING':
            if time.monotonic() > deadline:
                raise AssertionError('%s still running after %ss'
                                     % (name, timeout))
            time.sleep(0.1)
            result = self.result(result['id'])
        return result

    def result(self, command_id: str) -> dict:
        response = requests.get(
            self.url + '/v1/commands/%s' % command_id,
            params={'agent_token': self.token}, verify=self.verify,
            timeout=30)
        response.raise_for_status()
        return response.json()
