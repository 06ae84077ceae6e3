"""Computed fields: ``yaql_exp`` expressions over the new and the old site.

Any task or group field but ``id`` may be ``{yaql_exp: "<YAQL>"}``; the
expression is computed when a site action starts, over what the site
should look like (``new``: the target design revision and Ironside's
nodes now) and what it looked like (``old``: the design of the last
successful site action; none for a new site).

The context. ``$`` is the new state:

``$.nodes``
    Every node of the target design, and the nodes of the old design
    that the target removed (``pending_deletion``). Each has:

    ``name``             the node's name in the design (and in Ironside)
    ``uuid``             Ironside's UUID of the node; null if not enrolled
    ``roles``            the design's roles of the node (list of strings)
    ``groups``           the DeploymentStrategy groups selecting the node
    ``rack``             its rack, or null
    ``tags``             list of strings
    ``labels``           mapping of label key to value
    ``provision_state``  Ironside's provision state (``active``, ...), null
                         if not enrolled
    ``status``           Fuel's status: ``discover``, ``provisioning``,
                         ``provisioned``, ``ready``, ``error``,
                         ``removing`` (see :mod:`.context`)
    ``pending_addition`` in the target design, not in the old one
    ``pending_deletion`` in the old design, not in the target one
    ``properties``       the design's free-form properties of the node
    ``network_scheme``   Fuel's network scheme of the node, as its
                         BaremetalNode document gives it (``{}`` if none)
``$.configs``
    The design's configuration documents, by name: ``$.configs.nova``.
``$.settings``
    The design's settings, laid out as Fuel's: each Settings document is
    a section, by its name, holding its settings
    (``$.settings.additional_components.murano.value``).
``$.cluster.status``
    ``new``, ``partially_deployed`` or ``operational``.
``$node``
    In a field computed per node: that node's entry of ``$.nodes``
    (null in a field computed once per task).

The helpers (:mod:`.functions`): ``new``, ``old``, ``changed``,
``changedAll``, ``changedAny``, ``added``, ``deleted``, ``isUndef``,
``toJson``, ``toYaml``, ``networkScheme``; besides them YAQL's standard
library and any function of the entry point group
``ironside.site.expression_functions``.

Fuel's vocabulary (:mod:`.fuel_vocabulary`): ``$.role``/``$.label`` of
a node compared with a value, ``True``/``False``, ``network_scheme``
read as Fuel meant them; typographic quotes refused.

The API:

``build_context(target, live, deployed) -> SiteContext``
    the two states from a design, the live nodes and the old design.
``Evaluation(context)``
    one action's evaluation: ``condition()``, ``select_nodes()``,
    ``resolve()``, ``evaluate()``, ``reads_node()``, ``results``.
``check_expressions(value, path, owner) -> list[ExpressionError]``
    what a design commit refuses.
``find_expressions(value, path) -> list[FoundExpression]``
    where the expressions are.
``get_engine()``
    the process's engine.

Modules: ``engine`` (the engine, sandbox, function loading), ``memo``
(memoised lambdas), ``functions`` (the helpers), ``fuel_vocabulary``
(Fuel's vocabulary), ``context`` (states), ``fields`` (finding and
checking expressions), ``session`` (evaluation).
"""

from ironside.strategy.expressions.context import DesignNode
from ironside.strategy.expressions.context import DesignState
from ironside.strategy.expressions.context import LiveNode
from ironside.strategy.expressions.context import NodeState
from ironside.strategy.expressions.context import SiteContext
from ironside.strategy.expressions.context import SiteState
from ironside.strategy.expressions.context import build_context
from ironside.strategy.expressions.engine import FUNCTIONS_NAMESPACE
from ironside.strategy.expressions.engine import get_engine
from ironside.strategy.expressions.fields import EXPRESSION_KEY
from ironside.strategy.expressions.fields import ExpressionError
from ironside.strategy.expressions.fields import ExpressionResult
from ironside.strategy.expressions.fields import FoundExpression
from ironside.strategy.expressions.fields import check_expressions
from ironside.strategy.expressions.fields import find_expressions
from ironside.strategy.expressions.fields import is_expression
from ironside.strategy.expressions.session import Evaluation

__all__ = [
    'DesignNode', 'DesignState', 'EXPRESSION_KEY', 'Evaluation',
    'ExpressionError', 'ExpressionResult', 'FUNCTIONS_NAMESPACE',
    'FoundExpression', 'LiveNode', 'NodeState', 'SiteContext', 'SiteState',
    'build_context', 'check_expressions', 'find_expressions', 'get_engine',
    'is_expression',
]
