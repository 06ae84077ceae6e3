"""Reading site documents: the first stage of the site layer, split by
job. What kind a document is, is told in one place: the registry.

``source``
    Text (YAML or JSON, one document or a stream of several) to parsed
    documents, each with the line of every key and list item.
``errors``
    ``DocumentError`` (one problem: document, group or task, field, line)
    and the collector that places an error found at a path.
``schema``
    jsonschema's findings as ``DocumentError`` messages people can read.
``documents``
    Site design documents: Deckhand's envelope, collections read from
    their sources, content hashes, design issues.
``registry``, ``kinds``
    The kinds of documents (schemas, check, model; what an action runs a
    document as) and how a document's kind is told; ``kinds`` is the one
    registry every reader registers in.
``shipyard``, ``fuel``
    The DeploymentStrategy and the Fuel task graph kinds: schemas,
    semantic checks and models (:mod:`ironside.strategy.core.model`).
``configuration``, ``inventory``, ``freeform``, ``etcd_clusters``
    DeploymentConfiguration, the BaremetalNode inventory, configuration,
    settings and secrets, the EtcdClusters a redeploy_server reads.
``action_input``
    What an action is given directly: strategies and task graphs told
    apart by the registry, run options, access to the nodes.

Each further kind of document adds a module of its own beside these and
one line in ``kinds``. Checks across the documents of a design are the
design's (:mod:`ironside.strategy.designs.checks`).
"""
