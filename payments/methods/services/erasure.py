"""A customer's saved methods when their data is erased (DESIGN section 18):
every authorization the processor may still honour is deactivated there, then
the methods stop being usable here."""

from ...customers.models import Customer
from ...gateway.processors import processor_for
from ..models import PaymentMethod

# A revoked method's authorization is already dead at the processor.
_LIVE_AT_PROCESSOR = (
    PaymentMethod.Status.ACTIVE,
    PaymentMethod.Status.EXPIRED,
    PaymentMethod.Status.DELETED,
)


def payment_methods_deactivate_at_processor(*, customer: Customer) -> int:
    """Ask the processor to deactivate each of the customer's authorizations
    it may still honour; call outside any transaction (a ProcessorError stops
    the erasure before anything here changed). Asking twice is harmless, so a
    retried erasure asks again. The number asked."""
    asked = 0
    for method in PaymentMethod.objects.filter(
        customer=customer, status__in=_LIVE_AT_PROCESSOR
    ):
        processor = processor_for(method.processor)
        if processor is None or not method.authorization_code:
            continue
        processor.deactivate_authorization(authorization_code=method.authorization_code)
        asked += 1
    return asked


def payment_methods_retire(*, customer: Customer) -> None:
    """Inside the erasure's transaction, after the processor calls: every
    method is deleted (out of listings and charging), none is the default,
    and the authorization is no longer held."""
    for method in PaymentMethod.objects.select_for_update().filter(customer=customer):
        method.is_default = False
        method.authorization_code = ""
        if method.status != PaymentMethod.Status.DELETED:
            method.transition_to(
                PaymentMethod.Status.DELETED,
                update_fields=["is_default", "authorization_code"],
            )
        else:
            method.save(
                update_fields=["is_default", "authorization_code", "updated_at"]
            )
