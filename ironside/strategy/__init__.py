"""The site layer: deploy a whole site in groups, by a strategy.

``document``     DeploymentStrategy documents: reading, validation, model
``selectors``    which nodes a group has (and where nodes keep that data)
``criteria``     success criteria of a group
``plan``         the DAG of groups and which ready group runs next
``node_flow``    what to do next with one node, from its state
``runner``       runs one site action, group by group, phase by phase
``progress``     the action's progress document and results
``report``       the report, as JSON and as the spec's text
``actions``      creating strategies and actions (what the API calls)
``service``      the site action service in each conductor
``seam``         the one interface to nodes, with two implementations:
                 ``conductor_nodes`` (Ironside) and ``memory_nodes``
``design``       a site design read into typed models (strategies,
                 configuration, inventory, configs, other kinds)
``designs``      the design store: buffer, commits, revisions, tags,
                 versions by name, diffs, secrets masked
``design_actions``  what an action that runs a design revision does
                 before it is queued (target, guard, inventory)
``parameters``   site actions' parameters
"""
