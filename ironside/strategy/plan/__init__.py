"""A design becomes one plan: what a site action runs, settled when it is
created and stored with it.

``action_plan``     the plan (groups in order, tasks, each group's nodes,
                    each node's task runs) and which group runs next
``build``           building it, once: computed fields, the one graph
                    of groups and tasks, nodes, tasks, checks
``schedule``        whether a plan can run to its end
``computed_fields`` an action's ``yaql_exp`` fields, computed
``site_context``    what the expressions are computed over
``design_actions``  an action on a design revision: target revision,
                    intermediate-commit guard, inventory applied
``redeploy``        the ``redeploy_server`` plan: its steps, its checks
``parameters``      site actions' parameters
"""
