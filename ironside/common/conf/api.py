"""[api] options: the HTTP endpoint, and how long it waits on
conductors."""

from oslo_config import cfg

opts = [
    cfg.HostAddressOpt('host_ip', default='127.0.0.1',
                       help='Address the API listens on.'),
    cfg.PortOpt('port', default=6385, help='Port the API listens on.'),
    cfg.StrOpt('public_endpoint',
               help='URL clients reach the API at, used in links. Unset '
                    'means the URL of each request.'),
    cfg.IntOpt('max_limit', default=1000, min=1,
               help='Most items one list request returns.'),
    cfg.IntOpt('max_body_size', default=64 * 1024 * 1024, min=1024,
               help='Largest request body, in bytes, the API accepts; a '
                    'larger one is refused with 413. Large enough for a '
                    'configdrive, which Nova sends inline.'),
    cfg.IntOpt('max_json_field_size', default=1024 * 1024, min=1024,
               help='Largest JSON field (extra, properties, driver_info, '
                    'instance_info...) of a resource, in bytes of compact '
                    'JSON; a larger one is refused with 413. Every list '
                    'with details carries these fields whole.'),
    cfg.IntOpt('threads', default=32, min=1,
               help='Threads of the WSGI server that serve requests.'),
    cfg.IntOpt('backlog', default=1024, min=1,
               help='Listen backlog of the API socket: connections the '
                    'kernel holds while every server thread is busy. '
                    'cheroot\'s own default of 5 resets clients under a '
                    'burst (the kernel caps it at net.core.somaxconn).'),
    cfg.IntOpt('client_socket_timeout', default=10, min=1,
               help='Seconds the API waits for the next bytes of a '
                    'request (its headers or its body) before it answers '
                    '408 and closes the connection; also how long an idle '
                    'keep-alive connection stays open.'),
    cfg.IntOpt('rendered_node_cache_size', default=10000, min=0,
               help='Nodes whose rendered JSON an API process keeps '
                    'between list answers, each sent again while its row '
                    'is unchanged (about 5 KiB each for a whole node). 0 '
                    'renders every node of every answer.'),
    cfg.IntOpt('rendered_node_cache_mib', default=64, min=0,
               help='MiB that the node renderings an API process keeps '
                    'between list answers may take at most (their JSON '
                    'and what keeps it); the oldest go first. Together '
                    'with rendered_node_cache_size, whichever bound is '
                    'reached first. 0 renders every node of every '
                    'answer.'),
    cfg.BoolOpt('restrict_lookup', default=True,
                help='Answer an agent\'s lookup only for nodes in a state '
                     'in which an agent is expected to run (deploying, '
                     'cleaning, inspecting, rescuing, servicing and their '
                     'waits), as Ironic does.'),
    cfg.IntOpt('ramdisk_heartbeat_timeout', default=300, min=10,
               help='Seconds an agent may go without heartbeating; agents '
                    'heartbeat every 0.3 to 0.6 times this (sent to them '
                    'at lookup).'),
    cfg.IntOpt('ramdisk_rate_limit', default=20, min=1,
               help='Requests to the agent routes (lookup, heartbeat, '
                    'continue_inspection) one node or address may send in '
                    'a burst; more are answered 429 until it slows to '
                    'ramdisk_rate_limit_per_second.'),
    cfg.FloatOpt('ramdisk_rate_limit_per_second', default=2.0, min=0.01,
                 help='Sustained rate of agent requests per node or '
                      'address.'),
    cfg.FloatOpt('rpc_response_timeout', default=10.0, min=0.1,
                 help='Seconds a caller of the conductors (the API, the '
                      'site layer) waits for the answer to a call that '
                      'does not wait on a BMC (every action accepted with '
                      '202, every change), and at most for the RPC '
                      'transport to take any call (a message broker, or a '
                      'conductor\'s JSON-RPC endpoint, that cannot be '
                      'reached). Then the API answers 503, saying which '
                      'conductor cannot be reached; a call the transport '
                      'could not take is not sent later.'),
    cfg.FloatOpt('rpc_bmc_response_timeout', default=90.0, min=0.1,
                 help='Seconds a caller of the conductors waits for the '
                      'answer to a call that waits on a BMC (boot device, '
                      'indicators, virtual media, NMI, console, node '
                      'validation). Keep it above the conductors\' own '
                      'budget for a BMC ([redfish]read_timeout and '
                      'connection attempts, [ipmi]command_retry_timeout), '
                      'so that a BMC that does not answer is reported as '
                      'such, not as a conductor that did not.'),
    cfg.BoolOpt('allow_insecure_noauth', default=False,
                help='Serve the noauth strategy on a non-loopback address. '
                     'Anyone who can reach the port controls every node.'),
    cfg.BoolOpt('project_admin_can_manage_own_nodes', default=True,
                mutable=True,
                help='Let project-scoped admins create nodes (owned by '
                     'their project) and delete the nodes their project '
                     'owns (the rules baremetal:node:create:self_owned_node '
                     'and baremetal:node:delete:self_owned_node).'),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_opts(opts, group='api')
