"""[redfish] options: how the redfish hardware type talks to BMCs (sushy)."""

from oslo_config import cfg

AUTH_TYPES = [('basic', 'HTTP basic authentication on every request'),
              ('session', 'a Redfish session (X-Auth-Token)'),
              ('auto', 'a session if the BMC offers a SessionService, '
                       'basic authentication otherwise')]

opts = [
    cfg.StrOpt('auth_type', default='auto', choices=AUTH_TYPES,
               help='Authentication to BMCs; a node\'s driver_info '
                    'redfish_auth_type overrides it.'),
    # The budget of a call to a BMC that does not answer (see
    # ironside.drivers.modules.redfish.common).
    cfg.IntOpt('connection_attempts', default=3, min=1,
               help='Attempts to connect to a BMC that cannot be reached '
                    '(connection refused, no route, no TCP connection '
                    'within connect_timeout) before the call fails with '
                    'the BMC named. A call to a BMC that refuses '
                    'connections fails after (connection_attempts - 1) x '
                    'connection_retry_interval seconds, one to an address '
                    'that never answers after connection_attempts x '
                    'connect_timeout more. A BMC that took the connection '
                    'and did not answer within read_timeout is not asked '
                    'again: it may have acted on the request.'),
    cfg.FloatOpt('connection_retry_interval', default=1.0, min=0.0,
                 help='Seconds between attempts to connect to a BMC.'),
    cfg.IntOpt('connection_cache_size', default=1000, min=1,
               help='Redfish connections kept open, one per BMC and '
                    'credentials; the least recently used is closed first.'),
    cfg.FloatOpt('connect_timeout', default=5.0, min=0.1,
                 help='Seconds to wait for a TCP connection to a BMC.'),
    cfg.FloatOpt('read_timeout', default=60.0, min=0.1,
                 help='Seconds to wait for a BMC to answer a request. '
                      'Keep it below [api]rpc_bmc_response_timeout, so '
                      'that a BMC that does not answer a synchronous '
                      'request is reported as such.'),
    cfg.IntOpt('server_side_retries', default=5, min=0,
               help='Times sushy retries a GET that a BMC answered with a '
                    'server error (5xx). Requests that could not reach the '
                    'BMC are retried by connection_attempts only.'),
    cfg.FloatOpt('server_side_retries_delay', default=3.0, min=0.0,
                 help='Seconds between such retries.'),
    cfg.FloatOpt('power_poll_interval', default=1.0, min=0.01,
                 help='Seconds between power state reads while waiting for '
                      'a BMC to reach a requested power state.'),
    cfg.FloatOpt('task_poll_interval', default=5.0, min=0.01,
                 help='Seconds between polls of a BMC task (BIOS, RAID) '
                      'while a step waits for it.'),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_opts(opts, group='redfish')
