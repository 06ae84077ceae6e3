"""Site designs: the documents of a version read into one design,
checked as a whole, staged in a buffer, committed as numbered revisions,
tagged by the site actions that ran them, compared.

``design``      a version's documents read into typed models
``checks``      the checks across a design's documents
``validation``  a design checked as a commit checks it
``graph``       a strategy and task graphs merged into one graph of
                groups, stages and tasks, everything settled
``store``       the buffer, commits, versions' documents (the public API)
``versions``    version names, revisions by name, tags, the
                intermediate-commit guard
``diff``        what changed between two versions
``masking``     secrets, shown as ``******``
"""
