"""[ssh_tasks] options: how the SSH task runner reaches deployed nodes."""

from oslo_config import cfg

opts = [
    cfg.FloatOpt('connect_timeout', default=30.0, min=0.1,
                 help='Seconds to open an SSH connection to a node: TCP '
                      'connect, key exchange and login. A node that takes '
                      'longer is "unreachable: timed out connecting".'),
    cfg.IntOpt('max_concurrent_connects', default=32, min=1,
               help='Most SSH connections being set up at once (key '
                    'exchanges cost the conductor CPU); tasks of nodes '
                    'already connected do not wait for this.'),
    cfg.FloatOpt('keepalive_interval', default=30.0, min=0,
                 help='Seconds between SSH keepalives on idle connections; '
                      'a node missing three in a row is disconnected and '
                      'reconnected for its next task. 0 turns them off.'),
    cfg.FloatOpt('idle_timeout', default=600.0, min=1,
                 help='Seconds a connection to a node stays open with no '
                      'task; the next task reconnects.'),
    cfg.FloatOpt('kill_grace', default=2.0, min=0,
                 help='Seconds a timed-out task\'s processes get between '
                      'SIGTERM and SIGKILL.'),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_opts(opts, group='ssh_tasks')
