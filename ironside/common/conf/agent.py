"""[agent] options: how conductors talk to ironic-python-agent."""

from oslo_config import cfg

opts = [
    cfg.StrOpt('api_url',
               help='URL of the Ironside API as the agent on a machine '
                    'reaches it (its ipa-api-url). Unset means '
                    '[api]public_endpoint; the all-in-one service uses its '
                    'own address when neither is set.'),
    cfg.FloatOpt('command_timeout', default=60.0, min=1.0,
                 help='Seconds to wait for the agent to answer one HTTP '
                      'request (a command sent, or a status read).'),
    cfg.IntOpt('max_command_attempts', default=3, min=1,
               help='Attempts to reach an agent that refuses or drops the '
                    'connection before the operation fails.'),
    cfg.FloatOpt('command_wait_interval', default=1.0, min=0.05,
                 help='Seconds between status reads of an agent command '
                      'the conductor waits for in a step (such as '
                      'installing a boot loader).'),
    cfg.IntOpt('command_wait_attempts', default=600, min=1,
               help='Status reads of such a command before the step '
                    'fails.'),
    cfg.FloatOpt('step_poll_interval', default=15.0, min=0.05,
                 help='Seconds between status reads of an in-band step '
                      'while it runs on the agent. Each heartbeat of the '
                      'agent reads it at once, and the agent heartbeats '
                      'as soon as a command ends, so this only bounds how '
                      'late a lost heartbeat is noticed.'),
    cfg.IntOpt('step_timeout', default=10800, min=0,
               help='Seconds an in-band step (one command on the agent, '
                    'such as writing the image or erasing disks) may run '
                    'before the operation fails, however often the agent '
                    'heartbeats meanwhile. 0 waits for ever.'),
    cfg.FloatOpt('power_off_timeout', default=30.0, min=1.0,
                 help='Seconds to wait for a machine whose agent was asked '
                      'to power it off to be reported off by its BMC before '
                      'the BMC powers it off.'),
    cfg.BoolOpt('require_tls', default=True,
                help='Refuse heartbeats whose callback URL is plain HTTP. '
                     'The agent serves HTTPS with a certificate it makes '
                     'itself and sends with its heartbeats (API 1.68), so '
                     'commands to it are encrypted and verified.'),
    cfg.BoolOpt('verify_ca', default=True,
                help='Verify the agent\'s certificate with the one it sent '
                     'in its heartbeat. Turn off only to reach agents '
                     'behind a proxy that changes the certificate.'),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_opts(opts, group='agent')
