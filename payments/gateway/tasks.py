"""django-q2 entry points of the gateway: thin wrappers over services, safe to
run twice."""

from . import services


def refund_verification_charge(charge_id: int) -> bool:
    return services.verification_refund(charge_id=charge_id) is not None


def refund_verification_charges() -> int:
    return services.verification_refunds_retry()


def settle_sandbox_transfer(reference: str) -> str:
    return services.sandbox_transfer_settle(reference=reference)


def sandbox_refunds_settle() -> int:
    """Every minute: the sandbox settles its pending refunds (nothing elsewhere)."""
    return services.sandbox_refunds_settle()


def sandbox_disputes_run() -> int:
    """Every minute: the sandbox disputes its disputed card's charges, lapses
    unanswered disputes and announces each (nothing elsewhere)."""
    return services.sandbox_disputes_run()


def process_paystack_event(inbound_id: int) -> str:
    """Never raises: the error is written on the stored request and the retry
    schedule (`retry_paystack_events`) handles it again; the endpoint's reply
    is 200 whichever way the broker runs tasks."""
    try:
        return services.paystack_inbound_process(inbound_id=inbound_id)
    except Exception as error:  # noqa: BLE001 - recorded on the row
        return f"not handled yet: {type(error).__name__}"


def retry_paystack_events() -> int:
    return services.paystack_events_retry()


def purge_inbound_requests() -> int:
    """Daily: delete stored processor callbacks past their retention."""
    return services.inbound_requests_purge()
