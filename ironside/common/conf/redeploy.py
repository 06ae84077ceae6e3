"""[redeploy] options: how a redeploy_server action reaches the site's
Kubernetes cluster, and how long it waits for the server's destruction."""

from oslo_config import cfg

opts = [
    cfg.StrOpt('kubeconfig',
               help='Path of the kubeconfig file with which conductors reach '
                    'the site\'s Kubernetes API to drain, unlabel and delete '
                    'the node a redeploy_server action redeploys, on sites '
                    'whose design declares Kubernetes (an '
                    'ironside/KubernetesCluster/v1 document, or '
                    'Promenade\'s). Without it, a redeploy_server action on '
                    'such a site is refused when it is created (set it on '
                    'the API too); sites without Kubernetes need none.'),
    cfg.StrOpt('kubernetes_context',
               help='The kubeconfig context to use (default: its current '
                    'context).'),
    cfg.FloatOpt('kubernetes_poll_interval', default=1.0, min=0.01,
                 help='Seconds between reads of a node\'s pods while it '
                      'drains and its labels clear.'),
    cfg.FloatOpt('etcd_poll_interval', default=2.0, min=0.01,
                 help='Seconds between health reads of the etcd clusters '
                      'while waiting for them to be healthy without the '
                      'removed member (twice etcd\'s default election '
                      'timeout; the teardown spec says 30).'),
    cfg.IntOpt('destroy_timeout', default=1800, min=1,
               help='Seconds the destruction of a server (undeploy, wipe '
                    'its disks, power off) may take before the action '
                    'fails with DestroyNodeError.'),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_opts(opts, group='redeploy')
