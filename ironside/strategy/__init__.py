"""The site layer: deploy a whole site in groups, by a strategy and task
graphs. One pipeline, in one direction; each stage imports only the
stages before it (``tools/import_graph.py`` checks it):

``core/``          the vocabulary every stage reads: groups, tasks,
                   stages, selectors, success criteria, the graph of
                   groups, stages and tasks, places in a document
``progress``       an action's progress document and results
``expressions/``   computed (``yaql_exp``) task and group fields
``tasks/``         the task runners (SSH), by task type
``nodes/``         the one interface to nodes (``seam``) and Ironside's
                   implementation of it (``conductor``)

1. ``reader/``     documents are read and checked, by kind: one registry
                   of kinds (``reader.kinds``) that every reader
                   registers in (strategies, task graphs, a design's
                   documents, etcd clusters) and that documents given
                   directly are told apart by (``reader.action_input``)
   ``decommission/``  Kubernetes and etcd, for redeploy_server
2. ``designs/``    a version's documents become a design (its models,
                   its checks across documents, the merged graph of its
                   strategy and task graphs), stored as buffer, revisions
                   and tags
3. ``plan/``       a design (or documents given directly) becomes one
                   plan, built once when the action is created and
                   stored with it; every later stage reads it
4. ``run/``        the plan is run by one runner: its steps in order
                   (a redeploy_server's own, then every plan's groups)
``actions``        creating strategies and actions, reports, task lists
                   (what the API calls)
``service``        the site action service in each conductor
"""
