"""The servers under test, each started the same way: one process, SQLite,
loopback, noauth, fake hardware, automated cleaning on (or off, when the
run asks). A benchmark may lay options of its own over that configuration
(``options``); ``agent_options`` are those that make a server deploy real
machines with ironic-python-agent (benchmarks/agent_deploy.py).

A server is prepared (installed, configured, schema created) in a fresh state
directory, started on a free loopback port, and stopped by signalling the
process group it was started in, so nothing it forked outlives the run.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import requests
from prometheus_client.parser import text_string_to_metric_families

from tests.functional.fixtures import process

START_TIMEOUT = 120.0
STOP_TIMEOUT = 30.0

Sections = dict[str, dict[str, object]]

# The interfaces of the fake-hardware type that both servers implement with a
# fake; each server names its choice for the rest (network, storage,
# firmware).
FAKE_INTERFACES = ('bios', 'boot', 'console', 'deploy', 'inspect',
                   'management', 'power', 'raid', 'rescue', 'vendor')


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
                 options: Sections | None = None) -> None:
        self.keep_state = keep_state
        self.automated_clean = automated_clean
        # Laid over the configuration the server writes (merge_sections).
        self.options: Sections = options or {}
        self.state_dir = Path(tempfile.mkdtemp(prefix='bench-%s-' %
                                               self.name))
        self.port = free_port()
        self.base_url = 'http://127.0.0.1:%d' % self.port
        self.log_path = self.state_dir / 'server.log'
        self.process: subprocess.Popen | None = None

    def prepare(self) -> None:
        raise NotImplementedError

    def command(self) -> list[str]:
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
        """The configuration both servers share; each adds its own."""
        default = {
            'host': 'bench',
            'rpc_transport': rpc_transport,
            'auth_strategy': 'noauth',
            'enabled_hardware_types': 'fake-hardware',
            'log_file': self.log_path,
        }
        default.update(interface_options(interfaces))
        return {
            'DEFAULT': default,
            'api': {'host_ip': '127.0.0.1', 'port': self.port,
                    'max_limit': 1000},
            'conductor': {'automated_clean': str(self.automated_clean
                                                 ).lower()},
            'database': {'connection': 'sqlite:///%s' %
                         (self.state_dir / database_file)},
        }

    def start(self) -> None:
        self.prepare()
        with open(self.state_dir / 'stdout.log', 'ab') as out:
            self.process = subprocess.Popen(
                self.command(), stdout=out, stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL, cwd=self.state_dir,
                start_new_session=True)
        self._wait_ready()

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError('%s exited with %d while starting:\n%s' % (
                    self.name, self.process.returncode, self.logs()))
            try:
                if requests.get(self.base_url + '/', timeout=2).ok:
                    return
            except requests.RequestException:
                pass
            time.sleep(0.2)
        self.stop()
        raise RuntimeError('%s did not answer GET / in %ds:\n%s' % (
            self.name, START_TIMEOUT, self.logs()))

    def sql_statements(self) -> float | None:
        """SQL statements the server has sent so far, if it counts them."""
        return None

    def logs(self) -> str:
        return '%s\n%s' % (tail(self.state_dir / 'stdout.log'),
                           tail(self.log_path))

    def cpu_seconds(self) -> float:
        """CPU time (user + system) used so far by the server's processes.

        Counts every live process of the session the server was started in
        (servers that fork a worker are counted whole).
        """
        if self.process is None:
            return 0.0
        ticks = os.sysconf('SC_CLK_TCK')
        # Field 3 is the session id, 11 utime, 12 stime.
        total = sum(int(fields[11]) + int(fields[12])
                    for fields in process.process_stats().values()
                    if int(fields[3]) == self.process.pid)
        return total / ticks

    def memory(self) -> dict[str, object]:
        """Resident memory of the server's processes (every live process
        of its session, as cpu_seconds counts them), in MiB: now
        (``VmRSS``) and the most each has held since it started
        (``VmHWM``), per process and summed. The peak of the sum is at
        most the sum of the peaks."""
        if self.process is None:
            return {}
        processes = []
        for pid, fields in sorted(process.process_stats().items()):
            if int(fields[3]) != self.process.pid:
                continue
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
                'peak_rss_mib': _kib_to_mib(values.get('VmHWM'))})
        return {
            'rss_mib': round(sum(p['rss_mib'] for p in processes), 1),
            'peak_rss_mib': round(sum(p['peak_rss_mib']
                                      for p in processes), 1),
            'processes': processes}

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            pgid = self.process.pid
            os.killpg(pgid, signal.SIGTERM)
            try:
                self.process.wait(STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                os.killpg(pgid, signal.SIGKILL)
                self.process.wait()
            # A forked worker may linger a moment after its parent.
            try:
                os.killpg(pgid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        if not self.keep_state:
            shutil.rmtree(self.state_dir, ignore_errors=True)

    def __enter__(self) -> Server:
        self.start()
        return self

    def __exit__(self, *exc_info) -> None:
        self.stop()


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
        # /metrics, for the SQL statements per node and phase.
        sections['metrics'] = {'enabled': 'true'}
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
        text = requests.get(self.base_url + '/metrics', timeout=30).text
        return sum(sample.value
                   for family in text_string_to_metric_families(text)
                   for sample in family.samples
                   if sample.name == 'ironside_db_statements_total')

    def command(self) -> list[str]:
        return [self._script('ironside'), '--config-file',
                str(self.config_path), '--state-dir', str(self.state_dir)]

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


class IronsideOneProcessServer(IronsideServer):
    """The all-in-one run with ``--single-process``: the API calls the
    conductor in its own process (how it ran before it had two)."""

    name = 'ironside-1p'

    def command(self) -> list[str]:
        return super().command() + ['--single-process']


def make_server(name: str, keep_state: bool = False,
                automated_clean: bool = True,
                options: Sections | None = None) -> Server:
    """The server class registered under name, instantiated."""
    if name == 'ironside':
        return IronsideServer(keep_state, automated_clean, options)
    if name == 'ironside-1p':
        return IronsideOneProcessServer(keep_state, automated_clean,
                                        options)
    if name == 'ironic39':
        from benchmarks import ironic39
        return ironic39.Ironic39Server(keep_state, automated_clean,
                                       options)
    raise ValueError('unknown server %r (known: ironside, ironside-1p, '
                     'ironic39)' % name)
