"""A hard decline takes its method out of charging (DESIGN section 15): the
decline table (payments/gateway/declines.py) says what each reason does to the
method it came from. Called by `saved_method_charge` right after the
processor's answer, so the auto-debit engine, the deposit and early payments
all retire a method the same way, and a hard decline is never retried on it.
"""

from django.db import transaction

from ...gateway.declines import DEACTIVATE, EXPIRE, decline_of
from ...gateway.processors import TransactionResult
from ..models import PaymentMethod
from .methods import lock_customer, promote_newest_default
from .revocations import revocation_from_charge_failure


def payment_method_expire(*, method: PaymentMethod) -> bool:
    """The card has expired: it is never charged again (`expired`, listed as
    inactive history), and when it was the default the newest active method
    becomes the default. True when this call moved it."""
    with transaction.atomic():
        customer = lock_customer(method.customer)
        method = PaymentMethod.objects.select_for_update().get(pk=method.pk)
        if method.status != PaymentMethod.Status.ACTIVE:
            return False
        was_default = method.is_default
        method.is_default = False
        method.transition_to(PaymentMethod.Status.EXPIRED, update_fields=["is_default"])
        if was_default:
            promote_newest_default(customer, livemode=method.livemode)
    return True


def declined_method_retire(*, method: PaymentMethod, result: TransactionResult) -> bool:
    """What a declined charge's reason does to its method: an expired card is
    marked expired, a revoked authorization or a closed account deactivated
    (as a revocation webhook would). True when the method left charging."""
    if result.succeeded:
        return False
    effect = decline_of(result.failure_reason).method_effect
    if effect == EXPIRE:
        return payment_method_expire(method=method)
    if effect == DEACTIVATE:
        return revocation_from_charge_failure(
            authorization_code=method.authorization_code, result=result
        )
    return False
