"""[DEFAULT] options: identity of the process, drivers and RPC transport."""

import socket

from oslo_config import cfg

INTERFACE_TYPES = ('bios', 'boot', 'console', 'deploy', 'firmware',
                   'inspect', 'management', 'network', 'power', 'raid',
                   'rescue', 'storage', 'vendor')

opts = [
    cfg.StrOpt('host',
               default=socket.gethostname(),
               sample_default='localhost',
               help='Name of this conductor. Must be unique among the '
                    'conductors that share a database.'),
    cfg.ListOpt('enabled_hardware_types',
                default=['fake-hardware', 'ipmi', 'redfish'],
                help='Hardware types this conductor loads. Types that are '
                     'not installed are skipped with a warning.'),
    cfg.StrOpt('rpc_transport',
               default='oslo',
               choices=[('oslo', 'oslo.messaging over transport_url, '
                                 'between processes'),
                        ('json-rpc', 'JSON over HTTP to each '
                                     'conductor ([json_rpc]), no broker; '
                                     'the all-in-one\'s API process '
                                     '(--api-process) uses this'),
                        ('local', 'in-process calls; the all-in-one '
                                  'service uses this')],
               help='How the API reaches conductors.'),
    cfg.StrOpt('auth_strategy',
               default='noauth',
               choices=[('noauth', 'no authentication; refused unless the '
                                   'API listens on loopback or '
                                   '[api]allow_insecure_noauth is set'),
                        ('http_basic', 'HTTP basic authentication '
                                       'against [DEFAULT]http_basic_auth_'
                                       'user_file'),
                        ('keystone', 'keystonemiddleware auth_token')],
               help='Authentication strategy of the API.'),
    cfg.StrOpt('http_basic_auth_user_file',
               default='/etc/ironside/htpasswd',
               help='Apache htpasswd file (bcrypt entries) for the '
                    'http_basic auth strategy.'),
    cfg.BoolOpt('rbac_service_role_elevated_access',
                default=False,
                help='Let users with the service role in the project '
                     'named by rbac_service_project_name act on every '
                     'node, as system-scoped users do (Ironic\'s option). '
                     'Off: a service user acts on the nodes its project '
                     'owns, like any project.'),
    cfg.StrOpt('rbac_service_project_name',
               default='service',
               help='The project whose service-role users are elevated by '
                    'rbac_service_role_elevated_access.'),
    cfg.IntOpt('malloc_arena_max',
               default=2, min=0,
               help='Memory arenas glibc\'s malloc may give each process '
                    '(M_ARENA_MAX). glibc makes up to 8 per core, one per '
                    'thread that allocates while another does, and each '
                    'keeps what its threads freed; Python\'s threads take '
                    'turns holding the interpreter lock, so more arenas '
                    'buy little and an API whose threads render large '
                    'lists at once would hold tens of MiB it no longer '
                    'uses. 0 keeps glibc\'s default. The MALLOC_ARENA_MAX '
                    'environment variable, when set, wins.'),
]

for _iface in INTERFACE_TYPES:
    opts.append(cfg.ListOpt(
        'enabled_%s_interfaces' % _iface,
        default=None,
        sample_default='<all installed>',
        help='%s interface implementations this conductor loads. Unset '
             'means every installed one.' % _iface.capitalize()))
    opts.append(cfg.StrOpt(
        'default_%s_interface' % _iface,
        help='%s interface given to new nodes that name none. Unset means '
             'the first enabled one the hardware type supports.'
             % _iface.capitalize()))


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_opts(opts)
