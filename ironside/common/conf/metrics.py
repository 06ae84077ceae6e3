"""[metrics] options: Prometheus metrics of the API and the conductors."""

from oslo_config import cfg

opts = [
    cfg.BoolOpt('enabled', default=False,
                help='Serve Prometheus metrics: on /metrics of the API '
                     '(ironside, ironside-api) and on conductor_port of '
                     'each ironside-conductor. The all-in-one serves its '
                     'conductor\'s metrics on the API\'s /metrics too.'),
    cfg.HostAddressOpt('conductor_host', default='127.0.0.1',
                       help='Address ironside-conductor serves /metrics '
                            'on.'),
    cfg.PortOpt('conductor_port', default=9686,
                help='Port ironside-conductor serves /metrics on. Each '
                     'conductor process serves its own; two on one host '
                     'need two ports.'),
    cfg.BoolOpt('api_unauthenticated', default=False,
                help='Answer GET /metrics of the API without '
                     'authentication, for a Prometheus that cannot get a '
                     'keystone token. Metrics hold counts and durations by '
                     'route, state, step and conductor; no node names and '
                     'no secrets.'),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_opts(opts, group='metrics')
