"""[conductor] options: workers, locks, periodic jobs and timeouts."""

from oslo_config import cfg

opts = [
    cfg.StrOpt('conductor_group', default='',
               help='Group of this conductor. Nodes whose conductor_group '
                    'matches are managed by the conductors of that group.'),
    cfg.IntOpt('workers_pool_size', default=100, min=2,
               help='Threads that run long operations (steps, power '
                    'actions). When all are busy, new requests are refused '
                    'with HTTP 503.'),
    cfg.IntOpt('workers_pool_backlog', default=0, min=0,
               help='Operations that may wait for a free worker before '
                    'requests are refused.'),
    cfg.IntOpt('heartbeat_interval', default=10, min=1,
               help='Seconds between heartbeats a conductor writes to the '
                    'database.'),
    cfg.IntOpt('heartbeat_timeout', default=60, min=2,
               help='A conductor that has not heartbeated for this many '
                    'seconds is dead: its nodes are taken over.'),
    cfg.IntOpt('hash_ring_reset_interval', default=15, min=1,
               help='Seconds a cached hash ring of live conductors is '
                    'trusted before it is rebuilt.'),
    cfg.IntOpt('hash_partition_exponent', default=10, min=1, max=16,
               help='The hash ring has 2**exponent partitions per '
                    'conductor. More partitions spread nodes more evenly '
                    '(the busiest of 3 conductors owns about 40% of the '
                    'nodes with 5, 34% with 10) at a small cost when the '
                    'ring is built. Changing it moves nodes between '
                    'conductors: set it alike on every process.'),
    cfg.IntOpt('node_locked_retry_attempts', default=3, min=0,
               help='Times to retry taking a node lock held by someone '
                    'else before answering HTTP 409.'),
    cfg.FloatOpt('node_locked_retry_interval', default=1.0, min=0,
                 help='Seconds between attempts to take a node lock.'),
    cfg.BoolOpt('automated_clean', default=True,
                help='Run automated cleaning on provide and on tear down. '
                     'A node\'s own automated_clean field overrides it.'),
    cfg.IntOpt('deploy_callback_timeout', default=1800, min=0,
               help='Seconds a node may stay in "wait call-back" before '
                    'the deploy fails. 0 disables the check.'),
    cfg.IntOpt('clean_callback_timeout', default=1800, min=0,
               help='Seconds a node may stay in "clean wait" before the '
                    'cleaning fails. 0 disables the check.'),
    cfg.IntOpt('service_callback_timeout', default=1800, min=0,
               help='Seconds a node may stay in "service wait" before '
                    'the servicing fails. 0 disables the check.'),
    cfg.IntOpt('inspect_wait_timeout', default=1800, min=0,
               help='Seconds a node may stay in "inspect wait" (its agent '
                    'has not sent the inventory) before the inspection '
                    'fails. 0 disables the check.'),
    cfg.IntOpt('rescue_callback_timeout', default=1800, min=0,
               help='Seconds a node may stay in "rescue wait" before the '
                    'rescue fails. 0 disables the check.'),
    cfg.StrOpt('deploy_kernel',
               help='URL or absolute path of the kernel of the agent\'s '
                    'ramdisk, for nodes whose driver_info names none. With '
                    'deploy_ramdisk set, new ipmi and redfish nodes get '
                    'the direct deploy interface by default.'),
    cfg.StrOpt('deploy_ramdisk',
               help='URL or absolute path of the agent\'s ramdisk (initrd), '
                    'for nodes whose driver_info names none.'),
    cfg.StrOpt('rescue_kernel',
               help='Kernel of the rescue ramdisk, for nodes whose '
                    'driver_info names none. Unset means deploy_kernel.'),
    cfg.StrOpt('rescue_ramdisk',
               help='The rescue ramdisk, for nodes whose driver_info names '
                    'none. Unset means deploy_ramdisk.'),
    cfg.IntOpt('max_wait_step_seconds', default=30, min=0,
               help='Most seconds a "wait" step with "seconds" waits.'),
    cfg.IntOpt('check_provision_state_interval', default=60, min=1,
               help='Seconds between checks for nodes that waited too '
                    'long.'),
    cfg.FloatOpt('async_step_poll_interval', default=5.0, min=0.01,
                 help='Seconds between polls of an asynchronous step that '
                      'a driver reports through polling, unless the driver '
                      'asks for another interval.'),
    cfg.IntOpt('step_watchers', default=100, min=0,
               help='Asynchronous steps (an agent\'s command) a conductor '
                    'watches at once, so that it goes on the moment one '
                    'ends; steps beyond are polled on their interval.'),
    cfg.IntOpt('takeover_interval', default=10, min=1,
               help='Seconds between checks for nodes whose conductor '
                    'died, and for waiting nodes this conductor now owns.'),
    cfg.IntOpt('sync_power_state_interval', default=60, min=0,
               help='Seconds between power state syncs. 0 disables it.'),
    cfg.IntOpt('sync_power_state_workers', default=8, min=1,
               help='Nodes whose power state is read at once during a '
                    'sync.'),
    cfg.IntOpt('sync_power_state_per_bmc_workers', default=4, min=1,
               help='Power reads sent at once to one BMC endpoint (an IPMI '
                    'address and port, or a Redfish service that may serve '
                    'many systems) during a sync.'),
    cfg.IntOpt('power_state_sync_max_backoff', default=600, min=0,
               help='Most seconds a node whose power reads keep failing '
                    'waits before it is read again; the wait doubles with '
                    'each failure, starting from the sync interval.'),
    cfg.IntOpt('power_state_sync_max_retries', default=3, min=1,
               help='Failed power reads in a row after which a node is put '
                    'into maintenance with fault "power failure".'),
    cfg.BoolOpt('sync_hardware_health', default=True,
                help='Read the hardware health the BMC reports (Redfish '
                     'system Status, IPMI sensors) with each power state '
                     'sync, record it in the node\'s driver_internal_info '
                     '"health", and put a node whose health is critical '
                     'into maintenance with fault "hardware failure" until '
                     'it is healthy again.'),
    cfg.BoolOpt('force_power_state_during_sync', default=False,
                help='Set a node\'s real power state back to the recorded '
                     'one when they differ, instead of recording the real '
                     'one.'),
    cfg.IntOpt('power_state_change_timeout', default=60, min=2,
               help='Seconds to wait for a node to reach a requested '
                    'power state.'),
    cfg.IntOpt('max_concurrent_deploy', default=250, min=1,
               help='Most nodes of the whole fleet deploying at once '
                    '("deploying" and "wait call-back"), counted in the '
                    'database across every conductor. A deploy or rebuild '
                    'request over it is refused with HTTP 503 '
                    '(ConcurrentActionLimit), as Ironic does.'),
    cfg.IntOpt('max_concurrent_clean', default=50, min=1,
               help='Most nodes of the whole fleet being torn down or '
                    'cleaned at once ("deleting", "cleaning" and "clean '
                    'wait"), counted in the database across every '
                    'conductor. A tear down or manual clean request over '
                    'it is refused with HTTP 503 (ConcurrentActionLimit), '
                    'as Ironic does; provide is not refused.'),
    cfg.IntOpt('node_history_max_entries', default=300, min=0,
               help='History records kept per node; older ones are '
                    'deleted. 0 keeps all.'),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_opts(opts, group='conductor')
