"""[json_rpc] options: RPC between the API and conductors without a
message broker (``[DEFAULT]rpc_transport = json-rpc``)."""

from oslo_config import cfg

opts = [
    cfg.HostAddressOpt('host_ip', default='127.0.0.1',
                       help='Address a conductor serves JSON-RPC on. The '
                            'JSON-RPC endpoint has no authentication of '
                            'its own: keep it on loopback or a network '
                            'only the API hosts reach.'),
    cfg.PortOpt('port', default=8089,
                help='Port a conductor serves JSON-RPC on, and the port '
                     'the API calls each conductor on (at its [DEFAULT]'
                     'host name, which must resolve).'),
    cfg.IntOpt('threads', default=32, min=1,
               help='Threads a conductor answers JSON-RPC calls with.'),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_opts(opts, group='json_rpc')
