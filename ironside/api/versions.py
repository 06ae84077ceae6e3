"""API microversions: which version a request asked for, and what it allows.

Ironside speaks Ironic's API v1 from 1.1 to 1.115. A request names its
version with ``X-OpenStack-Ironic-API-Version: 1.N`` or
``OpenStack-API-Version: baremetal 1.N`` (the latter wins); ``latest``
means the maximum and no header means the minimum, as in Ironic.

Features newer than the requested version behave as if absent: fields are
hidden from responses, sub-resources answer 404, and newer fields,
filters, verbs or parameters in a request answer 406.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

import microversion_parse

from ironside.common import exception

BASE_VERSION = 1
MIN_MINOR = 1
MAX_MINOR = 115

MIN_VERSION_STRING = '%d.%d' % (BASE_VERSION, MIN_MINOR)
MAX_VERSION_STRING = '%d.%d' % (BASE_VERSION, MAX_MINOR)

VERSION_HEADER = 'X-OpenStack-Ironic-API-Version'
MIN_HEADER = 'X-OpenStack-Ironic-API-Minimum-Version'
MAX_HEADER = 'X-OpenStack-Ironic-API-Maximum-Version'

# Minor versions that introduced what Ironside implements (Ironic's
# numbering; the names say what each one added).
AVAILABLE_STATE = 2
DRIVER_INTERNAL_INFO = 3
MANAGEABLE_STATE = 4
NODE_NAME = 5
INSPECT_STATE = 6
NODE_CLEAN = 7
FIELDS = 8
PROVISION_STATE_FILTER = 9
UNRESTRICTED_NODE_NAME = 10
ENROLL_STATE = 11
RAID_CONFIG = 12
ABORT_VERB = 13
STATES_LINKS = 14
MANUAL_CLEAN = 15
DRIVER_FILTER = 16
ADOPT_VERB = 17
PORT_INTERNAL_INFO = 18
PORT_ADVANCED_NET_FIELDS = 19
NETWORK_INTERFACE = 20
RESOURCE_CLASS = 21
PORTGROUPS = 23
PORTGROUPS_SUBCONTROLLERS = 24
UNSET_CHASSIS_UUID = 25
PORTGROUP_MODE_PROPERTIES = 26
SOFT_POWER_OFF = 27
VIFS = 28
INJECT_NMI = 29
DYNAMIC_DRIVERS = 30
DYNAMIC_INTERFACES = 31
VOLUME = 32
STORAGE_INTERFACE = 33
PORT_PHYSICAL_NETWORK = 34
REBUILD_CONFIG_DRIVE = 35
NODE_TRAITS = 37
RESCUE_INTERFACE = 38
INSPECT_WAIT = 39
BIOS_INTERFACE = 40
INSPECTION_ABORT = 41
FAULT = 42
DETAIL_QUERY = 43
NODE_DEPLOY_STEP = 44
RESET_INTERFACES = 45
CONDUCTOR_GROUP = 46
AUTOMATED_CLEAN = 47
NODE_PROTECTED = 48
CONDUCTORS = 49
NODE_OWNER = 50
NODE_DESCRIPTION = 51
ALLOCATIONS = 52
PORT_SMARTNIC = 53
DEPLOY_TEMPLATES = 55
CONFIGDRIVE_DICT = 56
ALLOCATION_UPDATE = 57
ALLOCATION_BACKFILL = 58
CONFIGDRIVE_VENDOR_DATA = 59
ALLOCATION_OWNER = 60
NODE_RETIRED = 61
INDICATORS = 63
LOCAL_LINK_NETWORK_TYPE = 64
NODE_LESSEE = 65
NODE_NETWORK_DATA = 66
VIF_ATTACH_PORT = 67
DEPLOY_STEPS = 69
CLEAN_DISABLE_RAMDISK = 70
DEPLOY_UNDEPLOY_VERBS = 73
BIOS_REGISTRY = 74
NODE_BOOT_MODE = 75
CHANGE_BOOT_MODE = 76
DRIVER_FIELDS = 77
NODE_HISTORY = 78
ALLOCATION_NODE_NAME = 79
NODE_INVENTORY = 81
NODE_SHARD = 82
PARENT_CHILD_NODES = 83
UNHOLD_VERB = 85
FIRMWARE_INTERFACE = 86
SERVICE = 87
PORT_NAME = 88
VMEDIA = 89
# From 1.91 a trailing .json is part of a name, not a format suffix.
JSON_SUFFIX_IS_NAME = 91
RUNBOOKS = 92
VMEDIA_GET = 93
PORT_NODE_IDENT = 94
DISABLE_POWER_OFF = 95
INSPECTION_RULES = 96
PORT_DESCRIPTION = 97
SPECIAL_CHARS_IN_PATCH = 98
PORT_CONDUCTOR_GROUPS_FILTER = 99
PORT_VENDOR = 100
PORT_CATEGORY = 101
PORTGROUP_PHYSICAL_NETWORK = 102
PORTGROUP_CATEGORY = 103
NODE_INSTANCE_NAME = 104
PORTGROUP_SHARD = 106
SERVICE_DISABLE_RAMDISK = 108
NODE_HEALTH = 109
DEPLOYWAIT_ABORT = 110
DYNAMIC_PORTGROUP = 111
RUNBOOK_TRAITS = 112
NODE_HISTORY_PROJECT = 113
NODE_HISTORY_FIELDS = 115


@dataclasses.dataclass(frozen=True, order=True)
class Version:
    major: int
    minor: int

    def __str__(self) -> str:
        return '%d.%d' % (self.major, self.minor)

    def allows(self, minor: int) -> bool:
        """Whether this version has what ``minor`` introduced."""
        return self.minor >= minor


MIN_VERSION = Version(BASE_VERSION, MIN_MINOR)
MAX_VERSION = Version(BASE_VERSION, MAX_MINOR)


def _not_acceptable(message: str) -> exception.NotAcceptable:
    return exception.NotAcceptable(message)


def parse(headers: Mapping[str, str]) -> Version:
    """The version a request asks for (NotAcceptable if bad/unsupported).

    ``headers`` is a mapping of header names to values (any case).
    """
    try:
        # microversion_parse reads a dict (it folds any mapping into one).
        text = microversion_parse.get_version(
            dict(headers), service_type='baremetal',
            legacy_headers=[VERSION_HEADER])
        if not text:
            text = MIN_VERSION_STRING
        if text.strip().lower() == 'latest':
            text = MAX_VERSION_STRING
        parts = microversion_parse.parse_version_string(text)
        if len(parts) != 2:
            raise ValueError(text)
        version = Version(int(parts[0]), int(parts[1]))
    except (ValueError, TypeError, AttributeError):
        raise _not_acceptable('Invalid value for %s header'
                              % VERSION_HEADER) from None
    if version.major != BASE_VERSION:
        raise _not_acceptable(
            'Mutually exclusive versions requested. Version %s requested '
            'but not supported by this service. The supported version '
            'range is: [%s, %s].' % (version, MIN_VERSION_STRING,
                                     MAX_VERSION_STRING))
    if not MIN_VERSION <= version <= MAX_VERSION:
        raise _not_acceptable(
            'Version %s was requested but the minor version is not '
            'supported by this service. The supported version range is: '
            '[%s, %s].' % (version, MIN_VERSION_STRING, MAX_VERSION_STRING))
    return version


def require(version: Version, minor: int, what: str | None = None) -> None:
    """406 unless ``version`` has what ``minor`` introduced."""
    if not version.allows(minor):
        if what:
            raise exception.NotAcceptable(
                'Request not acceptable. The minimal required API version '
                'should be %d.%d for %s' % (BASE_VERSION, minor, what))
        raise exception.NotAcceptable(
            'Request not acceptable. The minimal required API version '
            'should be %d.%d' % (BASE_VERSION, minor))
