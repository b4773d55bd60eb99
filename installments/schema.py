"""OpenAPI descriptions of the installments endpoints, one module per feature:
the plan representation and the plans' reads (plans), a plan's agreement
(agreements), pay links (paylinks),
paying early (early), refunds (refunds), cancelling (cancellation),
rescheduling (reschedules), the sandbox's time travel and clock (collection),
disputes, resuming a plan after one and the sandbox's resolve call of a
dispute (disputes), a
customer's password reset (signin).

Imported by config.api.schema_generator.discover_schema_modules(); see
config.api.schema for what every operation gets without saying (security,
common error statuses).
"""

from .agreements import schema as agreements_schema
from .cancellation import schema as cancellation_schema
from .collection import schema as collection_schema
from .disputes import sandbox_schema as disputes_sandbox_schema
from .disputes import schema as disputes_schema
from .early import schema as early_schema
from .paylinks import schema as paylinks_schema
from .plans import schema as plans_schema
from .refunds import schema as refunds_schema
from .reschedules import schema as reschedules_schema
from .signin import schema as signin_schema

__all__ = [
    "agreements_schema",
    "cancellation_schema",
    "collection_schema",
    "disputes_sandbox_schema",
    "disputes_schema",
    "early_schema",
    "paylinks_schema",
    "plans_schema",
    "refunds_schema",
    "reschedules_schema",
    "signin_schema",
]
