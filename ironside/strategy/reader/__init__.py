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
    model (:mod:`ironside.strategy.model`).

Each further kind of document (a Fuel task graph, the documents of a
site design, the ``yaql_exp`` expressions inside them) adds a module of
its own beside these, built from the same three parts.
"""
