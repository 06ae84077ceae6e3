"""Reading site documents, split by job.

``source``
    Text (YAML or JSON, one document or a stream of several) to parsed
    documents, each with the line of every key and list item.
``errors``
    ``DocumentError`` (one problem: document, group or task, field, line)
    and the collector that places an error found at a path.
``schema``
    jsonschema's findings as ``DocumentError`` messages people can read.
``shipyard``
    The DeploymentStrategy kind: its schema, its semantic checks and its
    model (:mod:`ironside.strategy.core.model`).

``documents``
    Site design documents: Deckhand's envelope, collections read from
    their sources, content hashes, design issues.
``registry``, ``kinds``
    The kinds of design documents by schema (check, model) and the
    checks across documents; ``kinds`` registers them all.
``configuration``, ``inventory``, ``freeform``, ``references``
    DeploymentConfiguration, the BaremetalNode inventory, configuration,
    settings and secrets, and the checks across documents.

Each further kind of document (a Fuel task graph, etcd clusters, ...)
adds a module of its own beside these and one line in ``kinds``.
"""
