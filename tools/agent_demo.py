"""The quick start's agent demo: Ironside deploys a real image to a
simulated machine, in one command (``tools/quickstart --agent-demo``).

It starts the all-in-one (its state under ``state/agent-demo``), one
simulated machine (a Redfish BMC, a loop-device disk, firmware booting
the real ironic-python-agent), and makes a small disk image; then, with
``openstack baremetal`` commands printed as they run, enrolls the
machine, inspects it, cleans it, deploys the image with a config drive
holding a fresh SSH key, and shows the deployed OS answering SSH. It
keeps everything running until Ctrl-C, for more commands.
"""

from __future__ import annotations

import json
import os
import pathlib
import shlex
import subprocess
import sys
import time

REPO = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.functional.fixtures import ironside_process  # noqa: E402
from tests.functional.fixtures.clients import InProcessCli  # noqa: E402
from tests.functional.fixtures.sim_machine import disk_image  # noqa: E402
from tests.functional.fixtures.sim_machine import machines  # noqa: E402
from tests.utils import wait_for  # noqa: E402

STATE = REPO / 'state' / 'agent-demo'


def main() -> int:
    if os.geteuid() != 0:
        print('agent-demo: run as root (the simulated disk is a loop '
              'device)', file=sys.stderr)
        return 2
    subprocess.run(['rm', '-rf', str(STATE)], check=True)
    STATE.mkdir(parents=True)
    port = int(os.environ.get('IRONSIDE_PORT', '6385'))
    endpoint = 'http://127.0.0.1:%d' % port
    ironside = ironside_process.AllInOne(STATE / 'ironside', port=port,
                                         options={
        'DEFAULT': {'enabled_hardware_types': 'redfish,ipmi,fake-hardware'},
        'api': {'ramdisk_heartbeat_timeout': 30}})
    print('Starting Ironside at %s (state in %s)...' % (endpoint, STATE),
          flush=True)
    ironside.start()
    http_root = STATE / 'ironside' / 'state' / 'httpboot'
    (http_root / 'images').mkdir(parents=True, exist_ok=True)
    image = disk_image.make_disk_image(http_root / 'images' / 'demo.qcow2',
                                       'qcow2', size=128 * 1024 ** 2)
    sims = machines.SimulatedMachines(
        STATE / 'machines', count=1, bmc='redfish', nics=1,
        disk_size=2 * 1024 ** 3,
        boot_script_url=endpoint + '/boot/boot.ipxe', prefix='demo')
    sims.start()
    machine = sims[0]
    key = STATE / 'id_ed25519'
    subprocess.run(['ssh-keygen', '-q', '-t', 'ed25519', '-N', '', '-f',
                    str(key)], check=True)
    cli = InProcessCli(endpoint)

    def run(*args: str):
        print('$ openstack baremetal %s' % shlex.join(args), flush=True)
        result = cli(*args)
        if isinstance(result, str) and result.strip():
            print(result.rstrip())
        return result

    def wait(state: str) -> None:
        wait_for(lambda: cli('node', 'show', machine.name, '-f', 'json')[
            'provision_state'] == state, timeout=300, interval=0.5,
            what='%s to be %s' % (machine.name, state))

    try:
        info = machine.driver_info(deploy_kernel=sims.deploy_kernel_url,
                                   deploy_ramdisk=sims.deploy_ramdisk_url)
        args = ['node', 'create', '--name', machine.name, '--driver',
                'redfish', '--deploy-interface', 'direct',
                '--boot-interface', 'redfish-virtual-media',
                '--inspect-interface', 'agent',
                '--rescue-interface', 'agent']
        for name, value in info.items():
            args += ['--driver-info', '%s=%s' % (name, value)]
        run(*args, '-f', 'value', '-c', 'uuid')
        for verb, state in (('manage', 'manageable'),
                            ('inspect', 'manageable'),
                            ('provide', 'available')):
            run('node', verb, machine.name)
            wait(state)
        run('node', 'show', machine.name, '-f', 'value', '-c',
            'properties')
        run('node', 'set', machine.name, '--instance-info',
            'image_source=%s/boot/images/demo.qcow2' % endpoint,
            '--instance-info', 'image_os_hash_algo=sha256',
            '--instance-info', 'image_os_hash_value=%s' % image.file_sha256)
        drive = STATE / 'config-drive.json'
        drive.write_text(json.dumps({'meta_data': {
            'hostname': 'demo', 'public_keys': {
                'demo': (STATE / 'id_ed25519.pub').read_text().strip()}}}))
        run('node', 'deploy', machine.name, '--config-drive', str(drive))
        wait('active')
        wait_for(lambda: machine.state().get('os'), timeout=60,
                 what='the deployed OS')
        ssh = ['ssh', '-i', str(key), '-p', str(machine.ssh_port),
               '-o', 'StrictHostKeyChecking=no', '-o',
               'UserKnownHostsFile=/dev/null', '127.0.0.1',
               'echo "deployed: $NODE_NAME"']
        print('$ %s' % shlex.join(ssh), flush=True)
        subprocess.run(ssh, check=False)
        print('\nThe machine runs the image Ironside wrote to its disk.\n'
              'Try: export OS_AUTH_TYPE=none OS_ENDPOINT=%s\n'
              '     openstack baremetal node rescue %s '
              '--rescue-password secret --wait\n'
              'Ctrl-C stops everything.' % (endpoint, machine.name),
              flush=True)
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        return 0
    finally:
        sims.stop()
        ironside.stop()


if __name__ == '__main__':
    sys.exit(main())
