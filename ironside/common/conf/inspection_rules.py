"""[inspection_rules] options: how rules see what inspection found."""

from oslo_config import cfg

opts = [
    cfg.StrOpt('built_in_rules', mutable=True,
               help='Path of a YAML file of built-in inspection rules (a '
                    'list, each as the API takes a rule, with any '
                    'priority), applied with the stored ones. Read at each '
                    'inspection; not shown by the API.'),
    cfg.StrOpt('mask_secrets', default='always',
               choices=['always', 'never', 'sensitive'],
               help='Whether inspection rules see secrets (values whose '
                    'key names a password, secret, token or key, such as '
                    'bmc_password) of the inventory and plugin data as '
                    '"***": always, never, or except for rules marked '
                    'sensitive (sensitive).'),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_opts(opts, group='inspection_rules')
