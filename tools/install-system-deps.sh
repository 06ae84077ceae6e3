#!/bin/sh
# System packages the tests need beyond Python ones: Debian's ipmitool,
# which the functional tests run against the emulated BMCs. Idempotent:
# installs only what is missing.
set -eu

if command -v ipmitool >/dev/null 2>&1; then
    exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
    SUDO=sudo
else
    SUDO=
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq ipmitool
