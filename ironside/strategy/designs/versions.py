"""Versions of a site design by name, the site-action tags, and the
intermediate-commit guard.

A version is named ``buffer``, ``committed``, ``successful-site-action``,
``last-site-action`` (Shipyard's ``successful_site_action`` spelling is
accepted too) or a revision number. ``committed`` is the newest revision;
``successful-site-action`` the newest revision tagged
``site-action-success``; ``last-site-action`` the newest revision with
either site-action tag. A name that is none of these is a 400; a version
that does not exist (no revision committed, no site action finished, a
number past the newest) is a 404.

The guard (``003`` spec, "Check for intermediate committed revisions"):
a site action refuses to run revision T when revisions were committed
after the newest revision any site action ran (revision 0 if none) and
before T, since nobody could then say what the action changes.
"""

from __future__ import annotations

import dataclasses

from ironside.common import exception
from ironside.db import designs as designs_db
from ironside.db import site_models
from ironside.db.design_models import SITE_ACTION_FAILURE
from ironside.db.design_models import SITE_ACTION_SUCCESS
from ironside.db.design_models import SITE_ACTION_TAGS

BUFFER = 'buffer'
COMMITTED = 'committed'
SUCCESSFUL_SITE_ACTION = 'successful-site-action'
LAST_SITE_ACTION = 'last-site-action'
NAMES = (BUFFER, COMMITTED, SUCCESSFUL_SITE_ACTION, LAST_SITE_ACTION)

Version = str | int


def parse(version: Version) -> Version:
    """A version name or a revision number; InvalidDesignVersion else."""
    if isinstance(version, bool):
        raise exception.InvalidDesignVersion(version=version)
    if isinstance(version, int):
        if version < 0:
            raise exception.InvalidDesignVersion(version=version)
        return version
    text = str(version).strip().lower().replace('_', '-')
    if text in NAMES:
        return text
    if text.isdigit():
        return int(text)
    raise exception.InvalidDesignVersion(version=version)


def _not_found(what: str) -> exception.DesignVersionNotFound:
    return exception.DesignVersionNotFound(what=what)


def revision_of(version: Version, empty_ok: bool = False) -> int | None:
    """The revision a version names; None for the buffer.

    With ``empty_ok``, revision 0 (the empty design) is a version too,
    and ``committed`` is 0 before the first commit (a diff's base).
    """
    version = parse(version)
    if isinstance(version, int):
        if version == 0 and empty_ok:
            return 0
        if not 0 < version <= designs_db.latest_revision():
            raise _not_found('Design revision %d does not exist.' % version)
        return version
    if version == BUFFER:
        return None
    if version == COMMITTED:
        latest = designs_db.latest_revision()
        if latest or empty_ok:
            return latest
        raise _not_found('No design revision has been committed yet.')
    if version == SUCCESSFUL_SITE_ACTION:
        found = designs_db.newest_tagged([SITE_ACTION_SUCCESS])
        if found is None:
            raise _not_found('No design revision is tagged %s: no site '
                             'action has succeeded yet.'
                             % SITE_ACTION_SUCCESS)
        return found
    # LAST_SITE_ACTION, the one name left (parse gives no other).
    found = designs_db.newest_tagged(SITE_ACTION_TAGS)
    if found is None:
        raise _not_found('No design revision is tagged %s or %s: no '
                         'site action has finished yet.' % SITE_ACTION_TAGS)
    return found


def committed_revision_of(version: Version) -> int:
    """The committed revision a version names; the buffer is none
    (InvalidDesignVersion)."""
    found = revision_of(version)
    if found is None:
        raise exception.InvalidDesignVersion(version=version)
    return found


def action_tag(result: str | None) -> str | None:
    """The tag a finished action puts on its revision (an aborted one
    did not deploy all of it: a failure)."""
    if result is None:
        return None
    failed = result.startswith('failed') or result == site_models.ABORTED
    return SITE_ACTION_FAILURE if failed else SITE_ACTION_SUCCESS


@dataclasses.dataclass(frozen=True)
class Intermediate:
    # The newest revision a site action ran (0: none).
    last: int
    target: int
    revisions: list[int]

    def message(self) -> str:
        if len(self.revisions) == 1:
            what = 'revision %d was' % self.revisions[0]
        else:
            what = 'revisions %s were' % ', '.join(
                str(r) for r in self.revisions)
        after = 'revision %d (the newest a site action ran)' % self.last \
            if self.last else 'revision 0 (no site action has run a ' \
                              'revision yet)'
        return ('%s committed after %s and before revision %d (the one '
                'this action would run), and no site action ran %s. See '
                'what changed with "openstack site design diff '
                '--base-version %s --diff-version %d", and create the '
                'action with the parameter allow-intermediate-commits=true '
                'to run revision %d anyway.'
                % (what, after, self.target,
                   'it' if len(self.revisions) == 1 else 'them',
                   LAST_SITE_ACTION if self.last else 0, self.target,
                   self.target))


def intermediate_commits(target: int) -> Intermediate:
    last = designs_db.newest_tagged(SITE_ACTION_TAGS) or 0
    return Intermediate(last, target, designs_db.untagged_between(
        last, target, SITE_ACTION_TAGS))


def check_intermediate_commits(target: int) -> None:
    """IntermediateCommits, listing them, if there are any."""
    found = intermediate_commits(target)
    if found.revisions:
        raise exception.IntermediateCommits(details=found.message())
