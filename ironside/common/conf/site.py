"""[site] options: how site actions (deploy_site, update_site) run."""

from oslo_config import cfg

opts = [
    cfg.IntOpt('max_nodes_in_flight', default=50, min=1,
               help='Most nodes in flight (being prepared or deployed, or '
                    'running a task) for the site actions of every '
                    'conductor at once, whatever the groups\' strategies '
                    'ask for. Held in the database, so it holds across '
                    'conductors. Protects the BMC network and the '
                    'conductors\' worker pools.'),
    cfg.IntOpt('prepare_timeout', default=3600, min=1,
               help='Seconds a group\'s prepare phase (manage, clean, '
                    'provide) may take before the group fails with '
                    '"failed: timeout".'),
    cfg.IntOpt('deploy_timeout', default=7200, min=1,
               help='Seconds a group\'s deploy phase may take before the '
                    'group fails with "failed: timeout".'),
    cfg.IntOpt('node_locked_timeout', default=300, min=0,
               help='Seconds a site action asks again for a node whose '
                    'lock someone else holds (each request already waits '
                    '[conductor]node_locked_retry_attempts times) before '
                    'the node fails, to be judged by its group\'s success '
                    'criteria.'),
    cfg.FloatOpt('node_poll_interval', default=0.1, min=0.001,
                 help='Longest pause, in seconds, between two reads of the '
                      'states of the nodes in flight (one query for all of '
                      'them). The runner reads sooner while nodes are '
                      'changing. A phase ends at most this late after its '
                      'last node did.'),
    cfg.FloatOpt('action_check_interval', default=1.0, min=0.01,
                 help='Seconds between looks for new site actions and for '
                      'actions whose conductor died.'),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_opts(opts, group='site')
