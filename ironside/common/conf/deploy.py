"""[deploy] and [pxe] options: images, boot files and how machines boot
the agent's ramdisk."""

from oslo_config import cfg

deploy_opts = [
    cfg.StrOpt('http_root', default='/httpboot',
               help='Directory the boot files (iPXE scripts, deploy kernels '
                    'and ramdisks, boot ISOs) are written to, served to the '
                    'machines at [deploy]http_url by a web server.'),
    cfg.StrOpt('http_url',
               help='URL at which [deploy]http_root is served to machines '
                    'and BMCs, e.g. http://192.0.2.1:8080. Needed by the '
                    'pxe, ipxe and redfish-virtual-media boot interfaces '
                    'to boot the agent.'),
    cfg.IntOpt('erase_devices_priority', default=0, min=0,
               help='Priority of the agent\'s erase_devices clean step in '
                    'automated cleaning. It overwrites every disk whole, '
                    'which takes hours on large ones, so it runs only when '
                    'asked for (manual cleaning) unless given a priority '
                    'here (the agent\'s own is 10).'),
    cfg.IntOpt('erase_devices_metadata_priority', min=0,
               help='Priority of the agent\'s erase_devices_metadata clean '
                    'step, which removes partition tables and file system '
                    'signatures in automated cleaning. Unset keeps the '
                    'agent\'s own (99); 0 leaves it to manual cleaning.'),
    cfg.BoolOpt('serve_boot_files', default=False,
                help='Serve [deploy]http_root from the API itself, at '
                     '/boot/, without authentication (machines and BMCs '
                     'have no credentials). For an all-in-one service, '
                     'where the API and the conductor share a disk; the '
                     'all-in-one turns it on, with http_url pointing '
                     'there, unless http_url is set. Elsewhere, serve '
                     'http_root with a web server.'),
    cfg.BoolOpt('power_off_after_deploy_failure', default=True,
                help='Power a machine off when its deploy fails, so that '
                     'nothing half-written boots.'),
    cfg.BoolOpt('fast_track', default=False,
                help='Keep the agent running on a machine after its '
                     'inspection and cleaning (the machine stays powered '
                     'on, its agent heartbeating in manageable and '
                     'available), and have the next inspection, cleaning '
                     'or deploy use it instead of booting the machine '
                     'again, as Ironic\'s fast track (on in Metal3).'),
    cfg.IntOpt('fast_track_timeout', default=300, min=0, max=300,
               help='Seconds since its last heartbeat within which a '
                    'running agent is used by fast track; an older one is '
                    'taken for gone and the machine is booted again. At '
                    'most [api]ramdisk_heartbeat_timeout, the longest an '
                    'agent waits between heartbeats.'),
    cfg.StrOpt('image_cache', default='/var/lib/ironside/images',
               help='Directory where downloaded deploy kernels, ramdisks '
                    'and ISOs are kept between nodes.'),
    cfg.StrOpt('isolinux_bin',
               help='ISOLINUX boot loader put in the boot ISOs Ironside '
                    'builds for virtual media, so that BIOS machines boot '
                    'them (Debian: /usr/lib/ISOLINUX/isolinux.bin).'),
    cfg.StrOpt('ldlinux_c32',
               help='ISOLINUX\'s ldlinux.c32, put beside isolinux_bin '
                    '(Debian: /usr/lib/syslinux/modules/bios/ldlinux.c32).'),
    cfg.StrOpt('esp_image',
               help='EFI system partition image (FAT, holding a signed '
                    'shim and GRUB) put in the boot ISOs, so that UEFI '
                    'machines boot them.'),
]

pxe_opts = [
    cfg.StrOpt('kernel_append_params', default='nofb vga=normal',
               help='Kernel parameters every ramdisk the pxe, ipxe and '
                    'redfish-virtual-media boot interfaces boot gets, '
                    'before the agent\'s own. A node\'s driver_info '
                    'kernel_append_params replaces it.'),
    cfg.IntOpt('ipxe_timeout', default=0, min=0,
               help='Seconds iPXE waits for each boot file; 0 waits as '
                    'long as iPXE does by default.'),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_opts(deploy_opts, group='deploy')
    conf.register_opts(pxe_opts, group='pxe')
