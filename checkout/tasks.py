from . import services


def purge_expired_idempotency_records() -> int:
    return services.idempotency_records_purge()


def settle_deposit_attempts() -> int:
    """Deposit attempts whose answer was lost, then checkouts that ended unpaid."""
    return services.stale_attempts_settle() + services.abandoned_plans_cancel()


def expire_offline_deposits() -> int:
    """Deposits by bank transfer or USSD not paid in time."""
    return services.deposits_offline_expire()
