"""Who may do what: oslo.policy enforcement of Ironic's rules.

The rules and their defaults are Ironic's (``policy_rules``, with the
site API's in ``policy_site``), so a policy file written for Ironic
works here. Rules are enforced only with ``[DEFAULT]auth_strategy =
keystone``; ``noauth`` and ``http_basic`` have no roles to check, so
every request passes (as in Ironic).

A user with the ``service`` role in the service project
(``[DEFAULT]rbac_service_project_name``) acts on every node only with
``[DEFAULT]rbac_service_role_elevated_access``, as in Ironic: the
``service_role`` rule compares the caller's project name with the
target's ``config.service_project_name``, which is set only then.
"""

from __future__ import annotations

import logging
import sys
import threading
import time
from collections.abc import Mapping
from typing import Any

from oslo_config import cfg
from oslo_policy import policy

from ironside.api import policy_rules
from ironside.api import policy_site
from ironside.common import exception
from ironside.common.conf import CONF
from ironside.common.context import RequestContext

LOG = logging.getLogger(__name__)

SERVICE_PROJECT_KEY = 'config.service_project_name'


def list_rules() -> list[policy.RuleDefault]:
    """Every rule, for the enforcer and oslopolicy-sample-generator."""
    return policy_rules.RULES + policy_site.RULES


_ENFORCER: policy.Enforcer | None = None
_LOCK = threading.Lock()


def get_enforcer() -> policy.Enforcer:
    global _ENFORCER
    if _ENFORCER is None:
        with _LOCK:
            if _ENFORCER is None:
                enforcer = policy.Enforcer(CONF)
                enforcer.suppress_default_change_warnings = True
                enforcer.register_defaults(list_rules())
                _ENFORCER = enforcer
    return _ENFORCER


def reset() -> None:
    global _ENFORCER
    with _LOCK:
        _ENFORCER = None
        _DECISIONS.clear()


def get_oslo_policy_enforcer() -> policy.Enforcer:
    """For oslopolicy-* commands, which pass their own options in argv."""
    args = []
    argv = sys.argv[1:]
    skip = False
    for index, arg in enumerate(argv):
        if skip:
            skip = False
            continue
        if arg.lstrip('-').split('=')[0] in ('namespace', 'output-file',
                                             'format'):
            skip = '=' not in arg and index + 1 < len(argv)
            continue
        args.append(arg)
    try:
        CONF(args, project='ironside')
    except cfg.Error:
        CONF([], project='ironside')
    return get_enforcer()


def enforced() -> bool:
    return CONF.auth_strategy == 'keystone'


def check(rule: str, context: RequestContext,
          target: dict[str, Any] | None = None) -> bool:
    """Whether ``context`` passes ``rule`` (always, without keystone)."""
    if not enforced():
        return True
    return evaluate(rule, context, target)


# Decisions are remembered this many seconds: oslo.policy looks for its
# policy files on disk at every check, which costs more than a node show.
DECISION_TTL = 5.0
_DECISIONS: dict[tuple, tuple[float, bool]] = {}


def _decision_key(rule: str, creds: Mapping[str, Any], target: dict[str, Any]
                  ) -> tuple[Any, ...]:
    return (rule, tuple(sorted(creds.get('roles') or ())),
            creds.get('project_id'), creds.get('project_name'),
            creds.get('system_scope'),
            creds.get('domain_id'), creds.get('user_id'),
            tuple(sorted(target.items())))


def evaluate(rule: str, context: RequestContext,
             target: dict[str, Any] | None = None) -> bool:
    """Whether ``context`` passes ``rule``, whatever the auth strategy.

    For the rules that unmask secrets (``show_password``...), which hold
    even when nobody is authenticated.
    """
    target = dict(target or {})
    target.update(_configured_target())
    creds = context.to_policy_values()
    key = _decision_key(rule, creds, target)
    now = time.monotonic()
    found = _DECISIONS.get(key)
    if found is not None and now - found[0] < DECISION_TTL:
        return found[1]
    allowed = bool(get_enforcer().enforce(rule, target, creds))
    if len(_DECISIONS) > 10000:
        _DECISIONS.clear()
    _DECISIONS[key] = (now, allowed)
    return allowed


def _configured_target() -> dict[str, str]:
    """What the configuration adds to every target (Ironic adds it to the
    credentials, which its checks pass as the target too)."""
    if CONF.rbac_service_role_elevated_access and \
            CONF.rbac_service_project_name:
        return {SERVICE_PROJECT_KEY: CONF.rbac_service_project_name}
    return {}


def authorize(rule: str, context: RequestContext,
              target: dict[str, Any] | None = None) -> None:
    """403 unless ``context`` passes ``rule``."""
    if not check(rule, context, target):
        LOG.info('Refused %s to user %s of project %s', rule,
                 getattr(context, 'user_id', None),
                 getattr(context, 'project_id', None))
        raise exception.NotAuthorized(
            'Access was denied to the following resource: %s' % rule)


def runbook_target(owner: str | None) -> dict[str, Any]:
    """The target of a runbook rule; an unset owner matches no project."""
    return {'runbook.owner': owner} if owner else {}


def node_target(owner: str | None, lessee: str | None) -> dict[str, Any]:
    """The target of a node rule; unset owner/lessee match no project."""
    target = {}
    if owner:
        target['node.owner'] = owner
    if lessee:
        target['node.lessee'] = lessee
    return target
