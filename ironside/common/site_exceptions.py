"""The site layer's errors: deployment strategies, task graphs, site
actions, decommissioning, computed fields and site designs.

Every name here is also a name of :mod:`ironside.common.exception`,
which imports them, so callers use ``exception.InvalidDesign`` as they
use any other error. They derive from the kinds of
:mod:`ironside.common.exception_base`, not from that module, so the
imports go one way. The module is listed in oslo.messaging's
``allowed_remote_exmods`` beside it, so these too cross RPC as
themselves.
"""

from __future__ import annotations

from typing import Any

from ironside.common.exception_base import Conflict
from ironside.common.exception_base import Invalid
from ironside.common.exception_base import IronsideException
from ironside.common.exception_base import NotFound

__all__ = [
    'InvalidDesignDocument',
    'InvalidStrategy',
    'InvalidTaskGraph',
    'InvalidPlan',
    'StrategyNotFound',
    'StrategyAlreadyExists',
    'SiteActionNotFound',
    'SiteActionConflict',
    'SiteActionEnded',
    'DecommissionFailed',
    'ExpressionFailed',
    'InvalidDesign',
    'DesignBufferEmpty',
    'DesignCollectionUnchanged',
    'DesignChanged',
    'InvalidDesignVersion',
    'DesignVersionNotFound',
    'DesignIncomplete',
    'IntermediateCommits',
    'InvalidActionParameters',
]

# The site layer (deployment strategies and site actions)

class InvalidDesignDocument(Invalid):
    """A site design document is invalid; ``errors`` lists why."""

    msg_fmt = "Invalid design document: %(details)s"

    def __init__(self, errors: list) -> None:
        self.errors = list(errors)
        super().__init__(details='; '.join(str(e) for e in self.errors))


class InvalidStrategy(InvalidDesignDocument):
    """A deployment strategy document is invalid; ``errors`` lists why."""

    msg_fmt = "Invalid deployment strategy: %(details)s"


class InvalidTaskGraph(Invalid):
    """A task graph, or the plan built from a site's documents, is
    invalid; ``errors`` lists why (each naming its document, task or
    group, field and line)."""

    msg_fmt = "Invalid task graph: %(details)s"

    def __init__(self, errors: list) -> None:
        self.errors = list(errors)
        super().__init__(details='; '.join(str(e) for e in self.errors))


class InvalidPlan(Invalid):
    """The documents are valid but the action can not run them on these
    nodes (a task with no way to reach its node, a dependency that can
    never be met); ``problems`` lists why."""

    msg_fmt = "The site action can not run: %(details)s"

    def __init__(self, problems: list) -> None:
        self.problems = list(problems)
        super().__init__(details='; '.join(str(p) for p in self.problems))


class StrategyNotFound(NotFound):
    msg_fmt = "Deployment strategy %(strategy)s could not be found."


class StrategyAlreadyExists(Conflict):
    msg_fmt = "A deployment strategy named %(name)s already exists."


class SiteActionNotFound(NotFound):
    msg_fmt = "Site action %(action)s could not be found."


class SiteActionConflict(Conflict):
    msg_fmt = ("Site action %(action)s is still running on nodes %(nodes)s; "
               "a second action on the same nodes is refused until it "
               "finishes.")


class SiteActionEnded(Conflict):
    msg_fmt = ("Site action %(action)s has already ended (%(state)s); "
               "there is nothing to abort.")


# Decommissioning nodes from the clusters they host

class DecommissionFailed(IronsideException):
    """A decommission step ended in a failure status; ``status`` is it
    (an ironside.strategy.decommission.status.Status)."""

    msg_fmt = "%(reason)s: %(detail)s"
    failure_reason = 'DecommissionFailed'

    # Any: its type (Status) is the site layer's, above this module.
    def __init__(self, status: Any) -> None:
        self.status = status
        super().__init__(reason=status.reason, detail=status.message,
                         code=status.code)


class ExpressionFailed(Invalid):
    """A ``yaql_exp`` expression failed when a site action evaluated it.

    ``error`` (an ``expressions.fields.ExpressionError``) says which: the
    task or group, the field, the node, the expression and YAQL's
    message.
    """

    msg_fmt = "%(error)s"

    def __init__(self, error: Any) -> None:
        self.error = error
        super().__init__(error=error)


# Site designs

class InvalidDesign(Invalid):
    """Design documents are wrong; ``issues`` lists every problem."""

    msg_fmt = "%(what)s:\n%(details)s"

    def __init__(self, what: str, issues: list) -> None:
        self.issues = list(issues)
        super().__init__(what=what, details='\n'.join(
            '  %s' % issue for issue in self.issues))


class DesignBufferEmpty(Conflict):
    msg_fmt = ("The buffer is empty: it holds no change to the committed "
               "design, so there is nothing to commit.")


class DesignCollectionUnchanged(Invalid):
    msg_fmt = ("Collection %(collection)s is unchanged; nothing was added "
               "to the buffer.")


class DesignChanged(Conflict):
    msg_fmt = ("The buffer or the committed design changed while "
               "committing; nothing was committed. Commit again.")


class InvalidDesignVersion(Invalid):
    msg_fmt = ('Invalid version "%(version)s": expected buffer, committed, '
               'successful-site-action, last-site-action or a revision '
               'number.')


class DesignVersionNotFound(NotFound):
    msg_fmt = "%(what)s"


class DesignIncomplete(Invalid):
    msg_fmt = ("Design revision %(revision)s can not run a site action: "
               "%(reason)s.")


class IntermediateCommits(Conflict):
    msg_fmt = ("Intermediate commit detected: %(details)s")


class InvalidActionParameters(Invalid):
    msg_fmt = "%(err)s"
