"""OpenAPI description of the payment plan endpoints (DESIGN section 11) and of
the plan representation, which checkout completion answers with too: the
representations in `components`, the plans' endpoints in `plans`, refunds and
cancellation in `refunds`, the sandbox's time travel and clock in `sandbox`.

Imported by config.api.schema_generator.discover_schema_modules(); see
config.api.schema for what every operation gets without saying (security,
common error statuses).
"""

from . import plans, refunds, sandbox  # noqa: F401  (describe their endpoints)
from .components import PAYMENT_PLAN, PREFERRED_DAY

__all__ = ["PAYMENT_PLAN", "PREFERRED_DAY"]
