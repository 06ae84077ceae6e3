"""Schemas shared by several resources: traits and steps."""

from __future__ import annotations

import os_traits

from ironside.api import schemas
from ironside.common.conf.default import INTERFACE_TYPES
from ironside.db import models

CUSTOM_TRAIT_PATTERN = '^%s[A-Z0-9_]+$' % os_traits.CUSTOM_NAMESPACE
STANDARD_TRAITS = frozenset(os_traits.get_traits())
MAX_TRAIT_LENGTH = 255

TRAIT = {
    'type': 'string', 'minLength': 1, 'maxLength': MAX_TRAIT_LENGTH,
    'anyOf': [{'pattern': CUSTOM_TRAIT_PATTERN},
              {'enum': sorted(STANDARD_TRAITS)}],
}

# Stored for a deploy template's steps; clean and service steps are
# held to the same range.
STEP_PRIORITY = schemas.stored_integer_or_digits(
    models.DeployTemplateStep.priority)

STEP_PROPERTIES = {
    'interface': {'type': 'string', 'enum': sorted(INTERFACE_TYPES)},
    'step': {'type': 'string', 'minLength': 1},
    'args': {'type': 'object'},
    'priority': STEP_PRIORITY,
}

# A deploy step names everything; a clean step may leave out args and
# priority (the driver's priority applies).
DEPLOY_STEP = {
    'type': 'object',
    'properties': STEP_PROPERTIES,
    'required': ['interface', 'step', 'args', 'priority'],
    'additionalProperties': False,
}
DEPLOY_STEPS = {'type': 'array', 'items': DEPLOY_STEP}
CLEAN_STEPS = {'type': 'array',
               'items': dict(DEPLOY_STEP, required=['interface', 'step'])}
SERVICE_STEPS = CLEAN_STEPS


def trait_problem(trait: object) -> str | None:
    """Why ``trait`` is not a valid trait name, or None if it is."""
    if not isinstance(trait, str) or not trait:
        return 'a trait must be a non-empty string'
    if len(trait) > MAX_TRAIT_LENGTH:
        return 'trait %s is longer than %d characters' % (
            trait[:40] + '...', MAX_TRAIT_LENGTH)
    if trait in STANDARD_TRAITS or (
            trait.startswith(os_traits.CUSTOM_NAMESPACE) and
            len(trait) > len(os_traits.CUSTOM_NAMESPACE) and
            all(c.isupper() or c.isdigit() or c == '_'
                for c in trait[len(os_traits.CUSTOM_NAMESPACE):])):
        return None
    return ('trait %s is neither a standard trait (os-traits) nor a custom '
            'one matching %s' % (trait, CUSTOM_TRAIT_PATTERN))
