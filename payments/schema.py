"""OpenAPI descriptions of the payments endpoints, one module per domain.

Imported by config.api.schema_generator.discover_schema_modules(); see
config.api.schema for what every operation gets without saying (security,
common error statuses).
"""

from .customers import schema as customers_schema
from .gateway import schema as gateway_schema
from .ledger import schema as ledger_schema
from .methods import schema as methods_schema
from .payouts import schema as payouts_schema

__all__ = [
    "customers_schema",
    "gateway_schema",
    "ledger_schema",
    "methods_schema",
    "payouts_schema",
]
