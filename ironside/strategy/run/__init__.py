"""A plan is run by one runner, whatever the action.

``runner``     the one runner: a plan's steps, in order
``steps``      the steps' public seam, and the groups step every plan ends
               with
``groups``     an action's groups, phase by phase (prepare, deploy, tasks)
``node_flow``  what to do next with one node, from its state
``task_flow``  the task runs of an action: which may start, their results
``action_record``
               what the groups write besides nodes and tasks: the action's
               log, whether they changed anything, the revision's tag
``redeploy``   the steps of a ``redeploy_server`` plan: decommission,
               destroy, remove from the cluster, back in service
``destroy``    destroying one node through its own hardware interfaces
``peers``      the Kubernetes and etcd a redeploy_server action reaches
``in_flight``  the fleet cap
``abort``      aborting an action while it runs
``report``     the report, as JSON
"""
