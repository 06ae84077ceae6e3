"""Site designs: documents staged in a buffer, committed as numbered
revisions, tagged by the site actions that ran them, compared.

``store``      the buffer, commits, versions' documents (the public API)
``versions``   version names, revisions by name, tags, the
               intermediate-commit guard
``diff``       what changed between two versions
``masking``    secrets, shown as ``******``
"""
