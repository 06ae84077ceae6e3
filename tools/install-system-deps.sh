#!/bin/sh
# System packages the tests need beyond Python ones, from Debian. Called
# by tools/run-tests (and so by CI) before the tests; idempotent: installs
# only what is missing, and does nothing when everything is there.
#
# Each line of PACKAGES is "<command that proves it is installed>
# <Debian package>". etcd-server and etcd-client run the real etcd
# clusters of the decommission tests; any kubectl already on the PATH
# will do for their second opinion (Debian's kubernetes-client would
# clash with another package's /usr/bin/kubectl). chromium and
# chromium-driver run the web view's browser tests (headless).
# rabbitmq-server and postgresql run the fault tests' private broker node
# and database cluster (tests/functional/faults), on ports of their own.
# The simulated machines (tests/functional/fixtures/sim_machine) run
# ironic-python-agent, which writes images with qemu-img, sgdisk, parted,
# wipefs, partx, hexdump, fuser and udevadm, and erases disks with hdparm
# and shred; their firmware reads ISOs with xorriso and VFAT config
# drives with mtools; the tests make images and ISOs with the same (and
# dosfstools).
set -eu

PACKAGES='
ipmitool ipmitool
etcd etcd-server
etcdctl etcd-client
kubectl kubernetes-client
chromium chromium
chromedriver chromium-driver
/usr/sbin/sshd openssh-server
/usr/lib/rabbitmq/bin/rabbitmq-server rabbitmq-server
pg_ctlcluster postgresql
qemu-img qemu-utils
sgdisk gdisk
parted parted
xorriso xorriso
mcopy mtools
mkfs.vfat dosfstools
mkfs.ext4 e2fsprogs
udevadm udev
lshw lshw
hexdump bsdextrautils
fuser psmisc
hdparm hdparm
setpriv util-linux
'

missing=
for pair in $(echo "$PACKAGES" | tr ' ' ':'); do
    cmd=${pair%%:*}
    pkg=${pair#*:}
    if ! command -v "$cmd" >/dev/null 2>&1 && [ ! -x "$cmd" ]; then
        missing="$missing $pkg"
    fi
done
# tools/run-tests makes its virtualenv with "python3 -m venv", which
# Debian ships apart from python3.
python3 -c 'import ensurepip, venv' >/dev/null 2>&1 ||
    missing="$missing python3-venv"
[ -n "$missing" ] || exit 0

if [ "$(id -u)" -eq 0 ]; then
    SUDO=
elif command -v sudo >/dev/null 2>&1; then
    SUDO=sudo
else
    echo "install-system-deps: missing Debian packages:$missing;" \
         "install them as root (apt-get install$missing) and run again" >&2
    exit 1
fi
echo "install-system-deps: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing
