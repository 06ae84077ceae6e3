"""[ipmi] options: how the ipmi hardware type talks to BMCs (pyghmi)."""

from oslo_config import cfg

opts = [
    cfg.IntOpt('command_retry_timeout', default=60, min=1,
               help='Seconds to keep retrying an IPMI command to a BMC that '
                    'does not answer before the action fails. A node\'s '
                    'driver_info ipmi_retry_timeout overrides it.'),
    cfg.FloatOpt('retry_interval', default=1.0, min=0.0,
                 help='Seconds between attempts to reach a BMC that did '
                      'not answer.'),
    cfg.FloatOpt('power_poll_interval', default=1.0, min=0.01,
                 help='Seconds between power state reads while waiting for '
                      'a BMC to reach a requested power state.'),
    cfg.IntOpt('max_waiting_calls', default=4, min=1,
               help='Calls that may wait at once for one BMC busy with '
                    'another command; more are refused at once with 503 '
                    '(BMCBusy), so that a BMC that stops answering cannot '
                    'take every worker of the conductor. Calls of an '
                    'action holding its node\'s lock (at most one per '
                    'node) wait their turn regardless.'),
    cfg.FloatOpt('validate_timeout', default=5.0, min=0.1,
                 help='Seconds validation waits for a BMC to answer when it '
                      'checks the credentials. A BMC that does not answer '
                      'in time passes validation; the action itself then '
                      'fails with the BMC named.'),
    cfg.FloatOpt('rejected_credentials_interval', default=60.0, min=0.0,
                 help='Seconds a BMC\'s refusal of a user\'s credentials '
                      'is remembered: calls with the same credentials are '
                      'refused at once (400, naming the BMC and what it '
                      'said) without asking the BMC again. Changed '
                      'credentials are tried at once. 0 asks the BMC every '
                      'time.'),
    cfg.IntOpt('max_session_processes', default=100, min=1,
               help='IPMI sessions a conductor keeps open. Each BMC\'s '
                    'session lives in a process of its own (about 7 MB), '
                    'so that a BMC that does not answer can only hold up '
                    'its own calls; past this many, the least recently '
                    'used idle session is logged out to make room.'),
    cfg.FloatOpt('session_idle_timeout', default=120.0, min=1.0,
                 help='Seconds an IPMI session is kept open without calls '
                      'before it is logged out (and its process ends).'),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_opts(opts, group='ipmi')
