"""Model foundations every app shares: the one state machine for statuses and
the append-only base, the password rule of accounts."""

from .append_only import AppendOnly
from .credentials import PasswordCredentials
from .state_machine import IllegalTransition, StateMachine

__all__ = ["AppendOnly", "IllegalTransition", "PasswordCredentials", "StateMachine"]
