"""The servers under test, each started the same way: loopback, noauth,
fake hardware, automated cleaning on (or off, when the run asks), in one of
two shapes (``SHAPES``): the all-in-one on SQLite, or the API and one
conductor as processes of their own on a fresh PostgreSQL database, calling
each other over JSON-RPC or RabbitMQ (a virtual host of its own). A
benchmark may lay options of its own over that configuration
(``options``); ``agent_options`` are those that make a server deploy real
machines with ironic-python-agent (benchmarks/agent_deploy.py).

A server is prepared (installed, configured, schema created) in a fresh state
directory, started on a free loopback port, and stopped by signalling the
process group it was started in, so nothing it forked outlives the run.
"""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

import requests
from prometheus_client.parser import text_string_to_metric_families

from tests import dbs
from tests.functional.fixtures import process
from tests.functional.fixtures import services

START_TIMEOUT = 120.0
STOP_TIMEOUT = 30.0
# How often the proportional set size of a server's processes is summed
# while it runs, for its peak.
PSS_INTERVAL = 0.5

Sections = dict[str, dict[str, object]]

# The interfaces of the fake-hardware type that both servers implement with a
# fake; each server names its choice for the rest (network, storage,
# firmware).
FAKE_INTERFACES = ('bios', 'boot', 'console', 'deploy', 'inspect',
                   'management', 'power', 'raid', 'rescue', 'vendor')

# How a server runs (``--shape``), and for the split shapes the RPC
# transport between its API process and its conductor process (the same
# option value for both servers).
SHAPES = {'all-in-one': None, 'split-json-rpc': 'json-rpc',
          'split-rabbitmq': 'oslo'}
# The conductor's host name in the split shapes: for JSON-RPC both servers
# call a conductor at its host name, on [json_rpc]port.
SPLIT_CONDUCTOR_HOST = 'localhost'


def free_port() -> int:
    """A TCP port on loopback that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


def run_checked(argv: list[str], log_path: Path, **kwargs) -> None:
    """Run a preparation command, its output to log_path; fail loudly."""
    with open(log_path, 'ab') as log:
        result = subprocess.run(argv, stdout=log, stderr=subprocess.STDOUT,
                                **kwargs)
    if result.returncode != 0:
        raise RuntimeError('%s failed (exit %d); see %s:\n%s' % (
            ' '.join(argv), result.returncode, log_path,
            tail(log_path)))


def tail(path: Path, lines: int = 30) -> str:
    try:
        text = path.read_text(errors='replace')
    except OSError:
        return ''
    return '\n'.join(text.splitlines()[-lines:])


def postgres_cpu() -> float:
    """CPU seconds the machine's PostgreSQL has used: its live processes,
    and the backends that ended (the postmaster, their parent, holds
    their time as its children's once it reaps them). A server whose
    pool closes connections on return (oslo.db's default pool of 5 under
    a burst) starts and ends many backends, whose time the live ones
    alone would miss. The whole cluster is counted: the benchmark runs
    one server at a time."""
    ticks = os.sysconf('SC_CLK_TCK')
    stats = process.process_stats()
    ours = set()
    for pid in stats:
        try:
            if Path('/proc/%s/comm' % pid).read_text().strip() == \
                    'postgres':
                ours.add(pid)
        except OSError:
            continue
    total = 0
    for pid in ours:
        fields = stats[pid]
        # Fields 11-14: utime, stime, and the reaped children's cutime,
        # cstime (only the postmaster has backends for children).
        total += int(fields[11]) + int(fields[12])
        if int(fields[1]) not in ours:
            total += int(fields[13]) + int(fields[14])
    return total / ticks


class Server:
    """One server process under test.

    Subclasses say how to prepare the state directory (`prepare`) and which
    command serves the API (`command`).
    """

    name = ''
    # A line of the server's log saying a deploy step of a node started:
    # groups ``time`` (local, as the log writes it), ``node`` (UUID) and
    # ``step`` (the deploy interface's step name).
    deploy_step_line: re.Pattern | None = None

    def __init__(self, keep_state: bool = False,
                 automated_clean: bool = True,
                 options: Sections | None = None,
                 shape: str = 'all-in-one') -> None:
        if shape not in SHAPES:
            raise ValueError('unknown shape %r (known: %s)' % (
                shape, ', '.join(SHAPES)))
        self.keep_state = keep_state
        self.automated_clean = automated_clean
        self.shape = shape
        # The split shape's RPC transport; None for the all-in-one.
        self.transport = SHAPES[shape]
        # The split shapes' database and RabbitMQ virtual host, made by
        # start() and removed by stop().
        self.database: dbs.TestDatabase | None = None
        self.transport_url = ''
        self.json_rpc_port = 0
        self.conductor_metrics_port = 0
        self.peak_pss_mib = 0.0
        self._stopping = threading.Event()
        self._resources = contextlib.ExitStack()
        # Laid over the configuration the server writes (merge_sections).
        self.options: Sections = options or {}
        self.state_dir = Path(tempfile.mkdtemp(prefix='bench-%s-' %
                                               self.name))
        self.port = free_port()
        self.base_url = 'http://127.0.0.1:%d' % self.port
        self.log_path = self.state_dir / 'server.log'
        self.process: subprocess.Popen | None = None

    @property
    def split(self) -> bool:
        return self.transport is not None

    def prepare(self) -> None:
        raise NotImplementedError

    def command(self) -> list[str]:
        """The all-in-one's command line."""
        raise NotImplementedError

    def split_commands(self) -> list[list[str]]:
        """The split shape's command lines: the conductor's, the API's."""
        raise NotImplementedError

    def version(self) -> str:
        raise NotImplementedError

    # Deploying with the agent (benchmarks/agent_deploy.py).

    @property
    def boot_root(self) -> Path:
        """Where the server writes the boot files machines fetch (iPXE
        scripts, deploy kernels and ramdisks); the all-in-one ironside's
        default, under its state directory."""
        return self.state_dir / 'httpboot'

    def own_boot_url(self) -> str | None:
        """The URL at which the server itself serves boot_root; None when
        a web server of the site must (the harness then runs one)."""
        return None

    def agent_options(self, hardware_type: str, boot_url: str) -> Sections:
        """Options over the common ones that deploy ``hardware_type``
        nodes with the agent (``direct`` deploy, ``ipxe`` boot), with
        boot_root served at ``boot_url``."""
        raise NotImplementedError

    def common_sections(self, rpc_transport: str,
                        interfaces: dict[str, str],
                        database_file: str) -> dict[str, dict[str, object]]:
        """The configuration both servers share; each adds its own.
        ``rpc_transport`` and ``database_file`` are the all-in-one's; the
        split shapes use their transport and PostgreSQL database."""
        default = {
            'host': 'bench',
            'rpc_transport': rpc_transport,
            'auth_strategy': 'noauth',
            'enabled_hardware_types': 'fake-hardware',
            'log_file': self.log_path,
        }
        default.update(interface_options(interfaces))
        sections: Sections = {
            'DEFAULT': default,
            'api': {'host_ip': '127.0.0.1', 'port': self.port,
                    'max_limit': 1000},
            'conductor': {'automated_clean': str(self.automated_clean
                                                 ).lower()},
            'database': {'connection': 'sqlite:///%s' %
                         (self.state_dir / database_file)},
        }
        if self.split:
            self._split(sections)
        return sections

    def _split(self, sections: Sections) -> None:
        """One configuration file for both processes of a split server:
        the all-in-one's, on the PostgreSQL database, with the conductor
        reachable by the shape's transport."""
        sections['DEFAULT'].update(host=SPLIT_CONDUCTOR_HOST,
                                   rpc_transport=self.transport)
        if self.transport == 'oslo':
            sections['DEFAULT'].update(
                transport_url=self.transport_url,
                control_exchange=services.unique_exchange())
        else:
            sections['json_rpc'] = {'host_ip': '127.0.0.1',
                                    'port': self.json_rpc_port}
        sections['database'] = {'connection': self.database.url}

    def start(self) -> None:
        if self.split:
            self.database = dbs.TestDatabase('postgresql')
            self._resources.callback(self.database.drop)
            if self.transport == 'oslo':
                self.transport_url = self._resources.enter_context(
                    services.rabbit_vhost())
            else:
                self.json_rpc_port = free_port()
        self.prepare()
        if self.split:
            # A shell starts both and waits: one process to wait for and
            # to stop, whose descendants are the server's processes.
            argv = ['sh', '-c', ' & '.join(
                shlex.join(command) for command in self.split_commands())
                + ' & wait']
        else:
            argv = self.command()
        with open(self.state_dir / 'stdout.log', 'ab') as out:
            self.process = subprocess.Popen(
                argv, stdout=out, stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL, cwd=self.state_dir,
                start_new_session=True)
        self._wait(self._answers, 'answer GET /')
        if self.split:
            self._wait(self._lists_a_driver,
                       'list a driver (a conductor registered)')
        threading.Thread(target=self._sample_pss, daemon=True,
                         name='pss-%s' % self.name).start()

    def pss_mib(self) -> float:
        """The proportional set size of the server's processes summed, in
        MiB: each page counted once, shared pages split among the
        processes that share them (a forked worker's pages that are still
        its parent's are not counted twice, as a sum of RSS counts
        them)."""
        kib = 0
        for pid in self.processes():
            try:
                with open('/proc/%d/smaps_rollup' % pid) as rollup:
                    for line in rollup:
                        if line.startswith('Pss:'):
                            kib += int(line.split()[1])
                            break
            except OSError:
                continue
        return round(kib / 1024, 1)

    def _sample_pss(self) -> None:
        while not self._stopping.wait(PSS_INTERVAL):
            self.peak_pss_mib = max(self.peak_pss_mib, self.pss_mib())

    def _answers(self) -> bool:
        return requests.get(self.base_url + '/', timeout=2).ok

    def _lists_a_driver(self) -> bool:
        answer = requests.get(self.base_url + '/v1/drivers', timeout=5)
        return answer.ok and bool(answer.json().get('drivers'))

    def _wait(self, ready: Callable[[], bool], what: str) -> None:
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError('%s exited with %d while starting:\n%s' % (
                    self.name, self.process.returncode, self.logs()))
            try:
                if ready():
                    return
            except requests.RequestException:
                pass
            time.sleep(0.2)
        raise RuntimeError('%s did not %s in %ds:\n%s' % (
            self.name, what, START_TIMEOUT, self.logs()))

    def sql_statements(self) -> float | None:
        """SQL statements the server has sent so far, if it counts them."""
        return None

    def logs(self) -> str:
        return '%s\n%s' % (tail(self.state_dir / 'stdout.log'),
                           tail(self.log_path))

    def processes(self) -> dict[int, list[str]]:
        """The server's live processes (``/proc/<pid>/stat`` fields, as
        ``process.process_stats``): those of the session it was started in
        and their descendants, since Ironic's split services each start a
        session of their own; not the shell that starts a split server's
        two (about 1 MiB)."""
        if self.process is None:
            return {}
        stats = process.process_stats()
        ours = {pid for pid, fields in stats.items()
                if int(fields[3]) == self.process.pid}
        while True:
            more = {pid for pid, fields in stats.items()
                    if pid not in ours and int(fields[1]) in ours}
            if not more:
                if self.split:
                    ours.discard(self.process.pid)
                return {pid: stats[pid] for pid in ours}
            ours |= more

    def cpu_seconds(self) -> float:
        """CPU time (user + system) used so far by the server's processes
        (servers that fork a worker are counted whole)."""
        ticks = os.sysconf('SC_CLK_TCK')
        # Field 11 is utime, 12 stime.
        total = sum(int(fields[11]) + int(fields[12])
                    for fields in self.processes().values())
        return total / ticks

    def database_cpu_seconds(self) -> float | None:
        """CPU time of PostgreSQL so far, for the split shapes (None for
        the all-in-one's SQLite, which runs in the server's processes)."""
        if self.database is None:
            return None
        return postgres_cpu()

    def memory(self) -> dict[str, object]:
        """Resident memory of the server's processes (as cpu_seconds
        counts them), in MiB: now (``VmRSS``) and the most each has held
        since it started (``VmHWM``), per process and summed (the peak
        of the sum is at most the sum of the peaks); and their summed
        proportional set size, now and the most sampled
        (``PSS_INTERVAL``). Each process's CPU time so far comes with
        it."""
        if self.process is None:
            return {}
        processes = []
        for pid, fields in sorted(self.processes().items()):
            try:
                status = Path('/proc/%d/status' % pid).read_text()
                command = Path('/proc/%d/cmdline' % pid).read_bytes()
            except OSError:
                continue
            values = dict(line.split(':', 1) for line in status.splitlines()
                          if ':' in line)
            processes.append({
                'pid': pid, 'parent': int(fields[1]),
                'command': command.replace(b'\0', b' ').decode(
                    errors='replace').strip()[:200],
                'rss_mib': _kib_to_mib(values.get('VmRSS')),
                'peak_rss_mib': _kib_to_mib(values.get('VmHWM')),
                # Since it started: where a shape's CPU goes.
                'cpu_seconds': round((int(fields[11]) + int(fields[12]))
                                     / os.sysconf('SC_CLK_TCK'), 2)})
        pss = self.pss_mib()
        self.peak_pss_mib = max(self.peak_pss_mib, pss)
        return {
            'rss_mib': round(sum(p['rss_mib'] for p in processes), 1),
            'peak_rss_mib': round(sum(p['peak_rss_mib']
                                      for p in processes), 1),
            'pss_mib': pss,
            'peak_pss_mib': self.peak_pss_mib,
            'processes': processes}

    def stop(self) -> None:
        self._stopping.set()
        if self.process is not None and self.process.poll() is None:
            # Every process group of the server's processes: a forked
            # worker may linger a moment after its parent, and Ironic's
            # split services have groups of their own.
            # (Field 2 of /proc/<pid>/stat is the process group.)
            groups = {self.process.pid} | {
                int(fields[2]) for fields in self.processes().values()}
            _signal_groups(groups, signal.SIGTERM)
            try:
                self.process.wait(STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                pass
            _signal_groups(groups, signal.SIGKILL)
            self.process.wait()
        self._resources.close()
        if not self.keep_state:
            shutil.rmtree(self.state_dir, ignore_errors=True)

    def __enter__(self) -> Server:
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc_info) -> None:
        self.stop()


def _signal_groups(groups: set[int], signum: int) -> None:
    for group in groups:
        try:
            os.killpg(group, signum)
        except ProcessLookupError:
            pass


def _kib_to_mib(value: str | None) -> float:
    """A ``/proc/<pid>/status`` size ("12345 kB") in MiB; 0 when absent
    (a kernel thread, or a process that just ended)."""
    if not value:
        return 0.0
    return round(int(value.split()[0]) / 1024, 1)


def merge_sections(sections: Sections, overrides: Sections) -> Sections:
    """``sections`` with ``overrides`` laid over them, option by option;
    an override of None removes the option (back to the server's
    default)."""
    merged = {name: dict(options) for name, options in sections.items()}
    for name, options in overrides.items():
        section = merged.setdefault(name, {})
        for key, value in options.items():
            if value is None:
                section.pop(key, None)
            else:
                section[key] = value
    return merged


def without_interface_options() -> dict[str, None]:
    """Overrides that drop every enabled_/default_ interface option the
    common configuration sets (for servers to choose per hardware type)."""
    names = FAKE_INTERFACES + ('firmware', 'network', 'storage')
    return {'%s_%s_interface%s' % (kind, iface, 's' if kind == 'enabled'
                                   else ''): None
            for iface in names for kind in ('enabled', 'default')}


def write_ini(path: Path, sections: dict[str, dict[str, object]]) -> None:
    lines = []
    for section, options in sections.items():
        lines.append('[%s]' % section)
        lines.extend('%s = %s' % item for item in options.items())
        lines.append('')
    path.write_text('\n'.join(lines))


def interface_options(others: dict[str, str]) -> dict[str, str]:
    """[DEFAULT] options that enable exactly one implementation per
    interface, and make it the default: fake where both servers have one,
    the given choice for the others."""
    choices = dict.fromkeys(FAKE_INTERFACES, 'fake')
    choices.update(others)
    options = {}
    for iface, impl in choices.items():
        options['enabled_%s_interfaces' % iface] = impl
        options['default_%s_interface' % iface] = impl
    return options


class IronsideServer(Server):
    """The all-in-one `ironside` (its API and conductor processes)."""

    name = 'ironside'
    deploy_step_line = re.compile(
        r'^(?P<time>\S+ \S+) .* Node (?P<node>[0-9a-f-]{36}) \(.*?\) '
        r'deploy step deploy\.(?P<step>\w+) started$')

    def _script(self, name: str) -> str:
        script = Path(sys.executable).parent / name
        if not script.exists():
            raise RuntimeError('%s not found next to %s; install Ironside '
                               'into this virtualenv (pip install -e .)'
                               % (name, sys.executable))
        return str(script)

    def prepare(self) -> None:
        self.config_path = self.state_dir / 'ironside.conf'
        sections = self.common_sections(
            'local', {'firmware': 'no-firmware', 'network': 'noop',
                      'storage': 'noop'}, 'ironside.sqlite')
        # /metrics, for the SQL statements per node and phase (a split
        # conductor serves its own on a port of its own).
        sections['metrics'] = {'enabled': 'true'}
        if self.split:
            self.conductor_metrics_port = free_port()
            sections['metrics']['conductor_port'] = \
                self.conductor_metrics_port
        write_ini(self.config_path, merge_sections(sections, self.options))
        run_checked([self._script('ironside-dbsync'), '--config-file',
                     str(self.config_path), 'upgrade'],
                    self.state_dir / 'dbsync.log')

    def own_boot_url(self) -> str | None:
        return self.base_url + '/boot'

    def agent_options(self, hardware_type: str, boot_url: str) -> Sections:
        """The all-in-one's own defaults do the rest: it serves
        boot_root at /boot, tells agents its own address, and gives
        nodes of the agent's hardware types every installed interface
        (the node names ``direct`` and ``ipxe``)."""
        default: dict[str, object] = dict(without_interface_options())
        default['enabled_hardware_types'] = hardware_type
        return {'DEFAULT': default}

    def sql_statements(self) -> float | None:
        urls = [self.base_url + '/metrics']
        if self.split:
            urls.append('http://127.0.0.1:%d/metrics'
                        % self.conductor_metrics_port)
        return sum(sample.value
                   for url in urls
                   for family in text_string_to_metric_families(
                       requests.get(url, timeout=30).text)
                   for sample in family.samples
                   if sample.name == 'ironside_db_statements_total')

    def command(self) -> list[str]:
        return [self._script('ironside'), '--config-file',
                str(self.config_path), '--state-dir', str(self.state_dir)]

    def split_commands(self) -> list[list[str]]:
        config = ['--config-file', str(self.config_path)]
        return [[self._script('ironside-conductor')] + config,
                [self._script('ironside-api')] + config]

    def version(self) -> str:
        """Ironside's version and, from a git checkout, its commit."""
        python = str(Path(self._script('ironside')).parent / 'python')
        where = subprocess.run(
            [python, '-c', 'import importlib.metadata as m, ironside; '
             'print(m.version("ironside")); print(ironside.__file__)'],
            capture_output=True, text=True, cwd=self.state_dir, check=True
        ).stdout.split()
        commit = subprocess.run(
            ['git', 'describe', '--always', '--dirty'],
            capture_output=True, text=True,
            cwd=Path(where[1]).parent).stdout.strip()
        return '%s (%s)' % (where[0], commit) if commit else where[0]


class IronsideApiProcessServer(IronsideServer):
    """The all-in-one run with ``--api-process``: its API in a process
    of its own, forked from the conductor's and calling it over JSON-RPC
    on loopback (the all-in-one's default before 2026-11-29)."""

    name = 'ironside-2p'

    def command(self) -> list[str]:
        return super().command() + ['--api-process']


def make_server(name: str, keep_state: bool = False,
                automated_clean: bool = True,
                options: Sections | None = None,
                shape: str = 'all-in-one') -> Server:
    """The server class registered under name, instantiated."""
    if name == 'ironside':
        return IronsideServer(keep_state, automated_clean, options, shape)
    if name == 'ironside-2p':
        if shape != 'all-in-one':
            raise ValueError('ironside-2p is the all-in-one only')
        return IronsideApiProcessServer(keep_state, automated_clean,
                                        options)
    if name == 'ironic39':
        from benchmarks import ironic39
        return ironic39.Ironic39Server(keep_state, automated_clean,
                                       options, shape)
    raise ValueError('unknown server %r (known: ironside, ironside-2p, '
                     'ironic39)' % name)
