"""Model foundations every app shares: the one state machine for statuses and
the append-only base, the password rule of accounts, the rule of amounts."""

from .append_only import AppendOnly, AppendOnlyQuerySet
from .constraints import amount_positive
from .credentials import PasswordCredentials
from .state_machine import IllegalTransition, StateMachine

__all__ = [
    "AppendOnly",
    "AppendOnlyQuerySet",
    "IllegalTransition",
    "PasswordCredentials",
    "StateMachine",
    "amount_positive",
]
