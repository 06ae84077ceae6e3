"""Real deploys with the real agent: Ironside and Ironic 39 side by side.

    python -m benchmarks.agent_deploy --machines 10 --image-mib 256 \\
        --servers ironside,ironic39

For each server, one after the other in one run: fresh simulated machines
(tests/functional/fixtures/sim_machine; the same specs every time: a
Redfish BMC, one NIC, a loop-device disk, BIOS) that boot the real
ironic-python-agent over iPXE; a fresh server configured to deploy them
with it (``direct`` deploy, ``ipxe`` boot; ``Server.agent_options``);
one node per machine enrolled through the server's API, with a port for
the MAC it boots from, and taken to ``available`` (manage, provide;
automated cleaning off, so that only the deploy is timed); the same raw
whole-disk image set on every node (served over HTTP by the harness,
``image_os_hash_algo`` sha256). Then every node is deployed at once.

``--fast-track`` runs both servers with ``[deploy]fast_track`` (as
Metal3 runs Ironic): ``provide`` cleans (automated cleaning on, with the
agent's erase steps at priority 0, so that it boots the agent and runs
no step), the agent stays up in ``available`` and the deploy uses it
instead of booting one. The harness waits until every node's agent has
heartbeated before it deploys.

Per node it times the deploy request to ``active`` (the node list is
polled every ``--poll`` seconds), reads from the machine's agent log how
long the agent spent in its ``write_image`` deploy step (which runs
``standby.prepare_image``: download, checksum, write), and reports the
difference, the time beyond the agent's work. The machine's console and
agent logs (one clock with the harness) split that time further: the
server's work before the machine powers on into the ramdisk, the
machine's boot and the agent's start until its first heartbeat, the
server's work from that heartbeat to the image write, and from the end
of the write to the machine booting its disk and the node's ``active``.

It prints a table and writes everything to benchmarks/results/<UTC
time>.json. ``--keep-state`` keeps each server's state directory and the
machines' directories (logs); ``--debug`` logs the servers at DEBUG.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import datetime
import json
import os
import shutil
import signal
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import requests

from benchmarks import agent_timeline
from benchmarks import provision
from benchmarks import servers
from benchmarks.client import Api
from tests.functional.fixtures.sim_machine import disk_image
from tests.functional.fixtures.sim_machine import file_server
from tests.functional.fixtures.sim_machine.machines import MachineSpec
from tests.functional.fixtures.sim_machine.machines import SimulatedMachines

MiB = 1024 * 1024
GiB = 1024 * MiB
STATE_FIELDS = 'uuid,name,provision_state,last_error'

# Driving a server.


def image_instance_info(url: str, image: disk_image.DiskImage
                        ) -> dict[str, str]:
    """A raw whole-disk image over HTTP, as Ironic's documentation says
    to give one (doc/source/admin/interfaces/deploy.rst, "Streaming raw
    images"): with its format. Without it Ironic 39 names the image after
    its partition table (``gpt``) and the agent cannot read it."""
    return {'image_source': url, 'image_disk_format': 'raw',
            'image_os_hash_algo': 'sha256',
            'image_os_hash_value': image.file_sha256}


class Deployment:
    """One server and its machines, for one run."""

    def __init__(self, server: servers.Server, machines: SimulatedMachines,
                 image_url: str, image: disk_image.DiskImage,
                 boot_files_url: str) -> None:
        self.server = server
        self.machines = machines
        self.image_url = image_url
        self.image = image
        self.boot_files_url = boot_files_url
        self.api = Api(server.base_url)
        self.uuids: dict[str, str] = {}

    def enroll(self, hardware_type: str) -> None:
        for machine in self.machines:
            node = self.api.call('POST', '/v1/nodes', body={
                'name': machine.name, 'driver': hardware_type,
                'driver_info': machine.driver_info(
                    deploy_kernel=self.boot_files_url + '/deploy_kernel',
                    deploy_ramdisk=self.boot_files_url + '/deploy_ramdisk'),
                'boot_interface': 'ipxe', 'deploy_interface': 'direct',
                'resource_class': 'baremetal',
                'instance_info': image_instance_info(self.image_url,
                                                     self.image)},
                expect=(201,))
            self.uuids[machine.name] = node['uuid']
            # iPXE finds a machine's boot script by the MAC it boots from.
            self.api.call('POST', '/v1/ports', body={
                'node_uuid': node['uuid'], 'address': machine.macs[0],
                'pxe_enabled': True}, expect=(201,))

    def bmc_requests(self, reset: bool = False) -> int | None:
        """Redfish requests the machines' BMC emulator answered so far
        (its own count); None for IPMI BMCs."""
        info = self.machines[0].driver_info()
        if 'redfish_address' not in info:
            return None
        response = requests.request(
            'DELETE' if reset else 'GET',
            info['redfish_address'] + '/_fixture/stats',
            auth=(info['redfish_username'], info['redfish_password']),
            timeout=30)
        response.raise_for_status()
        return None if reset else response.json()['requests']

    def states(self) -> dict[str, dict]:
        nodes, _, _ = self.api.list_all('/v1/nodes', {
            'fields': STATE_FIELDS, 'limit': '1000'})
        return {node['uuid']: node for node in nodes}

    def set_state(self, uuid: str, target: str) -> float:
        """Send a provision verb; when it was sent (epoch seconds)."""
        sent = time.time()
        self.api.call('PUT', '/v1/nodes/%s/states/provision' % uuid,
                      body={'target': target}, expect=(202,))
        return sent

    def wait_for(self, wanted: str, timeout: float, poll: float,
                 failed: tuple[str, ...] = ()) -> dict[str, dict]:
        """Poll until every node is ``wanted`` (or failed); for each node
        when it was first seen so (epoch seconds) and its last record."""
        seen: dict[str, dict] = {}
        deadline = time.monotonic() + timeout
        while len(seen) < len(self.uuids):
            now = time.time()
            for uuid, node in self.states().items():
                if uuid in seen:
                    continue
                if node['provision_state'] == wanted or \
                        node['provision_state'] in failed:
                    seen[uuid] = dict(node, seen_at=now)
            if time.monotonic() > deadline:
                missing = [u for u in self.uuids.values() if u not in seen]
                raise TimeoutError('%d nodes not %s after %d s: %s' % (
                    len(missing), wanted, timeout, ', '.join(missing)))
            time.sleep(poll)
        return seen

    def make_available(self, timeout: float, poll: float) -> None:
        for uuid in self.uuids.values():
            self.set_state(uuid, 'manage')
        self._expect(self.wait_for('manageable', timeout, poll,
                                   ('enroll',)), 'manageable')
        for uuid in self.uuids.values():
            self.set_state(uuid, 'provide')
        self._expect(self.wait_for('available', timeout, poll,
                                   ('clean failed',)), 'available')

    def wait_for_agents(self, timeout: float, poll: float) -> None:
        """Wait until every node has an agent that heartbeated (its
        URL recorded), which a fast-track deploy then uses."""
        deadline = time.monotonic() + timeout
        waiting = set(self.uuids.values())
        while waiting:
            for uuid in sorted(waiting):
                node = self.api.call('GET', '/v1/nodes/%s' % uuid,
                                     params={'fields': 'driver_internal_info'})
                if node['driver_internal_info'].get('agent_url'):
                    waiting.discard(uuid)
            if waiting and time.monotonic() > deadline:
                raise TimeoutError('%d agents never heartbeated: %s' % (
                    len(waiting), ', '.join(sorted(waiting))))
            time.sleep(poll)

    def _expect(self, seen: dict[str, dict], wanted: str) -> None:
        bad = {uuid: node for uuid, node in seen.items()
               if node['provision_state'] != wanted}
        if bad:
            raise RuntimeError('not %s: %s' % (wanted, '; '.join(
                '%s %s (%s)' % (node['name'], node['provision_state'],
                                node['last_error'])
                for node in bad.values())))

    def deploy_all(self, timeout: float, poll: float
                   ) -> tuple[dict[str, float], dict[str, dict]]:
        """Every node's deploy request at once; when each was sent, and
        when each was seen active (or failed)."""
        with concurrent.futures.ThreadPoolExecutor(len(self.uuids)) as pool:
            futures = {uuid: pool.submit(self.set_state, uuid, 'active')
                       for uuid in self.uuids.values()}
            requested = {uuid: future.result()
                         for uuid, future in futures.items()}
        seen = self.wait_for('active', timeout, poll, ('deploy failed',))
        return requested, seen


def _median(values: list[float]) -> float | None:
    return round(statistics.median(values), 2) if values else None


def _stats(values: list[float]) -> dict[str, float | None]:
    return {'median': _median(values),
            'max': round(max(values), 2) if values else None,
            'mean': round(statistics.mean(values), 2) if values else None}


def summarize(nodes: list[dict], wall: float | None) -> dict[str, Any]:
    """Medians (and max, mean) over the nodes that became active."""
    def present(values: Any) -> list[float]:
        return [value for value in values if value is not None]

    summary: dict[str, Any] = {'wall': wall}
    for key in ('deploy_to_active', 'agent_write', 'beyond_agent',
                'server_own'):
        summary[key] = _stats(present(node.get(key) for node in nodes))
    summary['split_median'] = {
        key: _median(present(node['split'].get(key) for node in nodes))
        for key, _, _ in agent_timeline.SPLITS}
    steps: list[str] = []
    for node in nodes:
        steps.extend(step for step in node.get('steps', {})
                     if step not in steps)
    summary['steps_median'] = {
        step: _median(present(node.get('steps', {}).get(step)
                              for node in nodes))
        for step in steps}
    return summary


def extra_options(args: argparse.Namespace) -> servers.Sections:
    """``--debug`` and ``--option SECTION.KEY=VALUE``, as sections."""
    sections: servers.Sections = {}
    if args.debug:
        sections['DEFAULT'] = {'debug': True}
    for option in args.option:
        name, _, value = option.partition('=')
        section, _, key = name.rpartition('.')
        sections.setdefault(section or 'DEFAULT', {})[key] = value
    return sections


def fast_track_options(args: argparse.Namespace) -> servers.Sections:
    """``--fast-track``: the same for both servers. Cleaning boots the
    agent and runs none of its steps; the agent stays up."""
    if not args.fast_track:
        return {}
    return {'deploy': {'fast_track': True, 'erase_devices_priority': 0,
                       'erase_devices_metadata_priority': 0}}


def run_one(name: str, args: argparse.Namespace, image: disk_image.DiskImage,
            image_url: str, workdir: Path) -> dict[str, Any]:
    tag = '[%s %d machines]' % (name, args.machines)

    def log(text: str) -> None:
        print('%s %s' % (tag, text), file=sys.stderr, flush=True)

    result: dict[str, Any] = {'server': name, 'machines': args.machines}
    server = servers.make_server(name, keep_state=args.keep_state,
                                 automated_clean=args.fast_track)
    boot_url = server.own_boot_url()
    boot_server = None
    if boot_url is None:
        server.boot_root.mkdir(parents=True, exist_ok=True)
        boot_server = file_server.FileServer(server.boot_root).start()
        boot_url = boot_server.url
    server.options = servers.merge_sections(
        servers.merge_sections(server.agent_options(args.bmc, boot_url),
                               fast_track_options(args)),
        extra_options(args))
    # BIOS: the image has no EFI system partition, so in UEFI mode Ironic
    # (rightly) fails to install a boot loader after writing it.
    specs = [MachineSpec(bmc=args.bmc, nics=1, disk_size=args.disk_gib * GiB,
                         boot_mode='bios',
                         boot_script_url=boot_url + '/boot.ipxe')
             for _ in range(args.machines)]
    machines = SimulatedMachines(workdir / name / 'machines', specs=specs,
                                 prefix='%s-machine' % name)
    kernel_server = None
    try:
        log('starting %d simulated machines' % args.machines)
        machines.start()
        # The agent's marker kernel and ramdisk, as a site serves them.
        kernel_server = file_server.FileServer(
            machines.deploy_kernel.parent).start()
        log('starting the server')
        with server:
            result['version'] = server.version()
            deployment = Deployment(server, machines, image_url, image,
                                    kernel_server.url)
            result['api_version'] = deployment.api.version
            deployment.enroll(args.bmc)
            deployment.make_available(args.timeout, args.poll)
            if args.fast_track:
                deployment.wait_for_agents(args.timeout, args.poll)
            log('%d nodes available; deploying them all at once'
                % args.machines)
            result['load_average_before'] = os.getloadavg()
            cpu_before = server.cpu_seconds()
            deployment.bmc_requests(reset=True)
            requested, seen = deployment.deploy_all(args.timeout, args.poll)
            result['server_cpu_seconds'] = round(
                server.cpu_seconds() - cpu_before, 2)
            result['bmc_requests'] = deployment.bmc_requests()
            result['load_average_after'] = os.getloadavg()
            result['nodes'] = _nodes(deployment, requested, seen)
            failed = [node for node in result['nodes']
                      if node['provision_state'] != 'active']
            finished = [requested[uuid] for uuid in requested]
            ends = [node['seen_at'] for node in seen.values()]
            result['wall'] = round(max(ends) - min(finished), 2)
            result['failed'] = len(failed)
            for node in failed:
                log('%s: %s (%s)' % (node['name'], node['provision_state'],
                                     node['last_error']))
            result['summary'] = summarize(
                [node for node in result['nodes']
                 if node['provision_state'] == 'active'], result['wall'])
            log('all %d deployed in %.1f s (%d failed)' % (
                args.machines, result['wall'], len(failed)))
            if args.keep_state:
                result['state_dir'] = str(server.state_dir)
                result['machines_dir'] = str(machines.work_dir)
    finally:
        machines.stop()
        for helper in (kernel_server, boot_server):
            if helper is not None:
                helper.stop()
        if not args.keep_state:
            shutil.rmtree(workdir / name, ignore_errors=True)
    return result


def _nodes(deployment: Deployment, requested: dict[str, float],
           seen: dict[str, dict]) -> list[dict[str, Any]]:
    server = deployment.server
    server_log = server.log_path.read_text(errors='replace') \
        if server.log_path.exists() else ''
    nodes = []
    for machine in deployment.machines:
        uuid = deployment.uuids[machine.name]
        record = seen[uuid]
        active = record['seen_at'] if record['provision_state'] == \
            'active' else None
        timeline = agent_timeline.read_timeline(
            machine.agent_log(), machine.console_log(), requested[uuid])
        figures = agent_timeline.node_figures(requested[uuid], active,
                                              timeline)
        if server.deploy_step_line is not None:
            figures['steps'] = agent_timeline.step_spans(
                server_log, server.deploy_step_line, uuid, requested[uuid],
                active)
        nodes.append(dict(figures, name=machine.name, uuid=uuid,
                          provision_state=record['provision_state'],
                          last_error=record['last_error'],
                          requested_at=requested[uuid],
                          seen_at=record['seen_at']))
    return nodes


# Output.


def _cell(stats: dict | None) -> str:
    if not stats or stats.get('median') is None:
        return '-'
    return '%.1f / %.1f' % (stats['median'], stats['max'])


def _seconds(value: float | None) -> str:
    return '-' if value is None else '%.2f' % value


def _rows(runs: list[dict]) -> list[tuple[str, list[str]]]:
    def each(value: Any) -> list[str]:
        return [value(run) for run in runs]

    rows = [('wall time, request → all active, s',
             each(lambda run: _seconds(run['wall'])))]
    for key, label in (
            ('deploy_to_active', 'per node, s (median / max): deploy → '
                                 'active'),
            ('agent_write', '  the agent\'s image write'),
            ('beyond_agent', '  beyond the agent\'s image write'),
            ('server_own', '  the server\'s own (the "server" rows '
                           'below)')):
        rows.append((label, each(lambda run, key=key:
                                 _cell(run['summary'][key]))))
    rows.append(('split of a node\'s deploy, median s', each(lambda run:
                                                              '')))
    for key, label, whose in agent_timeline.SPLITS:
        rows.append(('  %s (%s)' % (label, whose), each(
            lambda run, key=key: _seconds(
                run['summary']['split_median'][key]))))
    steps: list[str] = []
    for run in runs:
        steps.extend(step for step in run['summary']['steps_median']
                     if step not in steps)
    rows.append(('deploy steps in the server\'s log, median s from '
                 'start to next', each(lambda run: '')))
    for step in steps:
        rows.append(('  %s' % step, each(lambda run, step=step: _seconds(
            run['summary']['steps_median'].get(step)))))
    rows.append(('server CPU during the deploy, s',
                 each(lambda run: _seconds(run.get('server_cpu_seconds')))))
    rows.append(('Redfish requests per node during the deploy', each(
        lambda run: '-' if run.get('bmc_requests') is None
        else '%.1f' % (run['bmc_requests'] / run['machines']))))
    rows.append(('nodes deployed by a running agent (fast track)', each(
        lambda run: str(sum(1 for node in run['nodes']
                            if node.get('fast_track'))))))
    rows.append(('failed nodes', each(lambda run: str(run['failed']))))
    rows.append(('load average before/after', each(
        lambda run: '%.1f/%.1f' % (run['load_average_before'][0],
                                   run['load_average_after'][0]))))
    return rows


def render(document: dict) -> str:
    settings = document['settings']
    lines = ['Deploys with the agent: %s machines at once, %s MiB raw image, '
             '%s BMCs, iPXE%s' % (settings['machines'], settings['image_mib'],
                                  settings['bmc'],
                                  ', fast track' if settings.get('fast_track')
                                  else '')]
    for run in document['runs']:
        if 'error' in run:
            lines.append('%s: failed: %s' % (run['server'], run['error']))
    runs = [run for run in document['runs'] if 'summary' in run]
    if not runs:
        return '\n'.join(lines)
    rows = _rows(runs)
    width = max(len(label) for label, _ in rows)
    for label, cells in [('', [run['server'] for run in runs])] + rows:
        line = '%-*s  %s' % (width, label, '  '.join('%-13s' % cell
                                                     for cell in cells))
        lines.append(line.rstrip())
    if len(runs) >= 2 and runs[0]['wall'] and runs[1]['wall']:
        lines.append('%s\'s wall time is %.2f× %s\'s' % (
            runs[0]['server'], runs[0]['wall'] / runs[1]['wall'],
            runs[1]['server']))
    return '\n'.join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split('\n\n')[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--servers', default='ironside,ironic39',
                        help='Comma-separated: ironside, ironic39 '
                             '(default: both, in that order).')
    parser.add_argument('--machines', type=int, default=10,
                        help='Simulated machines deployed at once '
                             '(default: 10).')
    parser.add_argument('--image-mib', type=int, default=256,
                        help='Size of the raw image (default: 256).')
    parser.add_argument('--disk-gib', type=int, default=1,
                        help='Size of each machine\'s disk (default: 1).')
    parser.add_argument('--bmc', default='redfish',
                        choices=('redfish', 'ipmi'),
                        help='The machines\' BMCs and the nodes\' hardware '
                             'type (default: redfish).')
    parser.add_argument('--poll', type=float, default=0.2,
                        help='Seconds between two reads of the node list '
                             '(default: 0.2).')
    parser.add_argument('--timeout', type=float, default=1200.0,
                        help='Seconds to wait for each phase (default: '
                             '1200).')
    parser.add_argument('--fast-track', action='store_true',
                        help='Both servers with [deploy]fast_track: the '
                             'agent booted for cleaning stays up and the '
                             'deploy uses it (see above).')
    parser.add_argument('--debug', action='store_true',
                        help='Log the servers at DEBUG.')
    parser.add_argument('--option', action='append', default=[],
                        metavar='SECTION.KEY=VALUE',
                        help='A configuration option for every server, '
                             'over the benchmark\'s (repeatable), e.g. '
                             'DEFAULT.default_log_levels=urllib3=DEBUG.')
    parser.add_argument('--keep-state', action='store_true',
                        help='Keep the servers\' state directories and the '
                             'machines\' directories (logs).')
    provision.add_output_option(parser)
    # Not /tmp: each agent gets a /tmp of its own, which would hide
    # its machine's directory if it lived there.
    parser.add_argument('--workdir', type=Path, default=Path('/var/tmp'),
                        help='Where the machines\' disks, logs and the '
                             'image go (default: /var/tmp; not /tmp, '
                             '/run or /var/lib, which each agent gets '
                             'its own of).')
    args = parser.parse_args(argv)
    if args.image_mib * MiB > args.disk_gib * GiB:
        parser.error('the image does not fit the disk (--disk-gib)')
    names = [name for name in args.servers.split(',') if name]

    started = datetime.datetime.now(datetime.timezone.utc)
    document: dict[str, Any] = {
        'benchmark': 'agent_deploy',
        'started': started.isoformat(timespec='seconds'),
        'machine': provision.machine(),
        'settings': {'servers': names, 'machines': args.machines,
                     'image_mib': args.image_mib, 'disk_gib': args.disk_gib,
                     'bmc': args.bmc, 'boot': 'ipxe', 'poll': args.poll,
                     'debug': args.debug, 'options': args.option,
                     'fast_track': args.fast_track},
        'runs': [],
    }
    output = args.output or provision.RESULTS_DIR / (
        started.strftime('%Y%m%dT%H%M%SZ') + '-agent-deploy.json')
    args.workdir.mkdir(parents=True, exist_ok=True)
    workdir = Path(tempfile.mkdtemp(prefix='bench-agent-deploy-',
                                    dir=args.workdir))
    clock = time.monotonic()
    try:
        images = workdir / 'images'
        images.mkdir()
        print('Making a %d MiB raw image...' % args.image_mib,
              file=sys.stderr, flush=True)
        image = disk_image.make_disk_image(
            images / 'disk.raw', 'raw', size=args.image_mib * MiB, seed=7)
        document['image'] = {'size': image.raw_size,
                             'sha256': image.file_sha256}
        with file_server.FileServer(images) as image_server:
            image_url = '%s/%s' % (image_server.url, image.path.name)
            for name in names:
                try:
                    run = run_one(name, args, image, image_url, workdir)
                except Exception as exc:
                    print('[%s] failed: %s' % (name, exc), file=sys.stderr,
                          flush=True)
                    run = {'server': name, 'machines': args.machines,
                           'error': str(exc)}
                document['runs'].append(run)
                output.parent.mkdir(parents=True, exist_ok=True)
                output.write_text(json.dumps(document, indent=1))
    finally:
        if args.keep_state:
            print('Machines and images kept in %s' % workdir,
                  file=sys.stderr)
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    document['seconds'] = round(time.monotonic() - clock, 1)
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps(document, indent=1))
    print(render(document))
    print('Results written to %s' % output)
    return 0 if all('error' not in run and not run.get('failed')
                    for run in document['runs']) else 1


if __name__ == '__main__':
    # Stopped by a signal, it still stops the servers and the machines.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    sys.exit(main())
