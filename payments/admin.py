"""The admin of the payments app, one module per domain (imported here, where
Django's admin autodiscovery looks)."""

from .gateway import admin as gateway_admin
from .ledger import admin as ledger_admin
from .methods import admin as methods_admin
from .payouts import admin as payouts_admin

__all__ = ["gateway_admin", "ledger_admin", "methods_admin", "payouts_admin"]
