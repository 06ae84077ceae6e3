"""The site API's policy rules (/site/v1).

Reading the site's state is a reader's; acting on nodes a manager's or
an admin's; the design and stored strategies are the whole site's, so
they are the system's. Each node an action or a node query touches is
checked further with the node rules (baremetal:node:get to see it,
baremetal:node:set_provision_state to act on it, baremetal:node:list_all
to see every node): a project sees and acts only on the nodes it owns or
leases.
"""

from __future__ import annotations

from ironside.api.policy_rules import API_READER
from ironside.api.policy_rules import SYSTEM_ADMIN
from ironside.api.policy_rules import SYSTEM_MEMBER
from ironside.api.policy_rules import SYSTEM_READER
from ironside.api.policy_rules import SYSTEM_SERVICE
from ironside.api.policy_rules import any_of
from ironside.api.policy_rules import rule

SITE_READER = API_READER
SITE_MANAGER = any_of(SYSTEM_MEMBER, SYSTEM_SERVICE, 'role:manager',
                      'role:admin')
_SITE_ONE_ACTION = '/site/v1/actions/{action_uuid}'
_SITE_STRATEGY = '/site/v1/strategies/{name}'
RULES = [
    rule('baremetal:site:get', SITE_READER,
         'See what the site API offers', [('GET', '/site/v1')]),
    rule('baremetal:site:web:get', SITE_READER,
         'Load the site web view and its assets (under keystone they are '
         'served without a token: they hold no data)',
         [('GET', '/site'), ('GET', '/site/static/{name}')]),
    rule('baremetal:site:strategy:get', SITE_READER,
         'List and show stored deployment strategies',
         [('GET', '/site/v1/strategies'), ('GET', _SITE_STRATEGY)]),
    rule('baremetal:site:strategy:validate', SITE_READER,
         'Validate a deployment strategy (nothing is stored)',
         [('POST', '/site/v1/strategies/validate')]),
    rule('baremetal:site:strategy:create', SYSTEM_MEMBER,
         'Store a deployment strategy', [('POST', '/site/v1/strategies')]),
    rule('baremetal:site:strategy:delete', SYSTEM_MEMBER,
         'Delete a stored deployment strategy',
         [('DELETE', _SITE_STRATEGY)]),
    rule('baremetal:site:action:list', SITE_READER,
         'List the site actions whose nodes the caller may all see',
         [('GET', '/site/v1/actions')]),
    rule('baremetal:site:action:list_all', SYSTEM_READER,
         'List every site action', [('GET', '/site/v1/actions')]),
    rule('baremetal:site:action:get', SITE_READER,
         'Show a site action and its report (each of its nodes must '
         'pass baremetal:node:get)', [('GET', _SITE_ONE_ACTION)]),
    rule('baremetal:site:action:create', SITE_MANAGER,
         'Start a site action (each of its nodes must pass '
         'baremetal:node:set_provision_state)',
         [('POST', '/site/v1/actions')]),
    rule('baremetal:site:action:abort', SITE_MANAGER,
         'Abort a site action (each of its nodes must pass '
         'baremetal:node:set_provision_state)',
         [('POST', _SITE_ONE_ACTION + '/abort')]),
    rule('baremetal:site:node:filter', SITE_READER,
         'List the nodes selectors select, among those the caller may '
         'see', [('POST', '/site/v1/nodes/filter')]),
    rule('baremetal:site:node:status', SITE_READER,
         'Show the states of nodes, among those the caller may see',
         [('GET', '/site/v1/nodes/status')]),
    rule('baremetal:site:task:get', SYSTEM_READER,
         'List the tasks of a stored design version',
         [('GET', '/site/v1/tasks')]),
    rule('baremetal:site:task:validate', SITE_READER,
         'List or validate the tasks of task graphs given in the request '
         '(nothing is stored)',
         [('POST', '/site/v1/tasks'), ('POST', '/site/v1/tasks/validate')]),
    rule('baremetal:site:design:get', SYSTEM_READER,
         'Show the site design: the buffer, documents, rendered versions '
         'and diffs (secrets masked)',
         [('GET', '/site/v1/designs/buffer'),
          ('GET', '/site/v1/designs/documents'),
          ('GET', '/site/v1/designs/rendered'),
          ('GET', '/site/v1/designs/diff')]),
    rule('baremetal:site:design:update', SYSTEM_ADMIN,
         'Stage, discard and commit the site design',
         [('POST', '/site/v1/designs/buffer/{collection}'),
          ('DELETE', '/site/v1/designs/buffer'),
          ('POST', '/site/v1/designs/commit')]),
    rule('baremetal:site:revision:get', SYSTEM_READER,
         'List and show design revisions',
         [('GET', '/site/v1/revisions'),
          ('GET', '/site/v1/revisions/{revision}')]),
]

