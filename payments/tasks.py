"""django-q2 entry points: thin wrappers over services, safe to run twice."""

from . import services


def refund_verification_charge(charge_id: int) -> bool:
    return services.verification_refund(charge_id=charge_id) is not None


def refund_verification_charges() -> int:
    return services.verification_refunds_retry()


def poll_revoked_mandates() -> int:
    return services.revoked_mandates_poll()
