"""The site layer: deploy a whole site in groups, by a strategy and task
graphs.

``reader``       documents read and checked, by kind (Shipyard's
                 strategies, Fuel's task graphs, a design's documents)
``model``        groups, tasks and stages: one model for every source
``graph``        the items of task graphs and the order between them
``site_graph``   an action's documents merged into one graph
``action_input`` what an action runs: documents, run options, access
``action_plan``  the plan of one action, built once when it is created
``schedule``     whether a plan can run to its end
``selectors``    which nodes a group has (and where nodes keep that data)
``criteria``     success criteria of a group
``plan``         the DAG of groups and which ready groups run next
``node_flow``    what to do next with one node, from its state
``task_flow``    the task runs of an action: which may start, results
``tasks``        the task runners (SSH; local, for the in-memory site)
``in_flight``    the fleet cap
``runner``       runs one site action, its groups phase by phase
``progress``     the action's progress document and results
``report``       the report, as JSON and as the spec's text
``actions``      creating strategies and actions (what the API calls)
``service``      the site action service in each conductor
``seam``         the one interface to nodes, with two implementations:
                 ``conductor_nodes`` (Ironside) and ``memory_nodes``
``expressions``  computed (``yaql_exp``) task and group fields
``design``       a site design read into typed models (strategies,
                 configuration, inventory, configs, other kinds)
``designs``      the design store: buffer, commits, revisions, tags,
                 versions by name, diffs, secrets masked
``design_actions``  what an action that runs a design revision does
                 before it is queued (target, guard, inventory)
``parameters``   site actions' parameters
"""
