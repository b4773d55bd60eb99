"""django-q2 entry points of the ledger."""

from .balances import balances_checkpoint


def checkpoint_balances() -> None:
    """The `payments-ledger-checkpoint` schedule: the lines posted since the
    last checkpoint counted into the kept balances (balances.py)."""
    balances_checkpoint()
