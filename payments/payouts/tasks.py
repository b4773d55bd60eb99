"""django-q2 entry points of payouts: thin wrappers over services."""

from . import services


def run_payouts() -> int:
    """Daily: pay every merchant due a payout; returns how many were made."""
    return len(services.payouts_run().created)
