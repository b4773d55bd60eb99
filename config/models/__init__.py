"""Model foundations every app shares: the one state machine for statuses and
the append-only base."""

from .append_only import AppendOnly
from .state_machine import IllegalTransition, StateMachine

__all__ = ["AppendOnly", "IllegalTransition", "StateMachine"]
