"""The sandbox's hands on pending bank transfer and USSD payments (DESIGN
section 17): `POST /api/v1/sandbox/payments/{id}/complete` (the customer's
money lands, of exactly the amount, or another amount, which is refused) and
`.../expire` (its time runs out now). Nothing else completes a sandbox
payment, so a test decides when the money lands.

The endpoints find a payment by its public id's prefix in a small registry:
early payments (`pay_...`, EARLY_PAYMENTS) and any other kind of pending payment (a
deposit paid by transfer at the hosted checkout) are registered under their
prefix in installments/apps.py with `register_sandbox_payments`, and the same
endpoints complete and expire them.
"""

from collections.abc import Callable
from dataclasses import dataclass

from config.api.errors import NotFound
from payments.gateway.errors import (
    SandboxChargeExpired,
    SandboxChargeNotFound,
    SandboxChargeNotPending,
)
from payments.gateway.services.sandbox_offline import (
    sandbox_offline_complete,
    sandbox_offline_expire,
)

from .errors import PaymentNotPending
from .expiry import early_payment_expire
from .models import EarlyPayment
from .selectors import early_payment_of_merchant
from .serializers import early_payment_output


@dataclass(frozen=True)
class SandboxPayments:
    """One kind of pending payment the sandbox endpoints reach: find one of a
    merchant's by public id (404 otherwise), complete it (optionally with the
    amount the customer sent), expire it, and answer it."""

    find: Callable  # (merchant, public_id) -> payment
    complete: Callable  # (payment, amount | None) -> payment
    expire: Callable  # (payment) -> payment
    output: Callable  # (payment) -> dict


# The kinds under each prefix, tried in order: early payments and deposits by
# transfer share `pay_` (each is "a payment" to the merchant).
_registry: dict[str, list[SandboxPayments]] = {}


def register_sandbox_payments(prefix: str, kind: SandboxPayments) -> None:
    kinds = _registry.setdefault(prefix, [])
    if kind not in kinds:
        kinds.append(kind)


def sandbox_payment_find(merchant, public_id: str) -> tuple[SandboxPayments, object]:
    """The merchant's payment a public id names, and its kind; 404 when no
    kind registered under its prefix has it (another merchant's too)."""
    for kind in _registry.get(public_id.partition("_")[0], ()):
        try:
            return kind, kind.find(merchant, public_id)
        except NotFound:
            continue
    raise NotFound("No payment of yours has this id.")


def _pending(payment: EarlyPayment) -> EarlyPayment:
    if not payment.offline:
        raise PaymentNotPending(
            "Only a bank transfer or USSD payment is completed or expired by hand; "
            "this one was charged to a saved payment method."
        )
    if payment.expired:
        raise SandboxChargeExpired()
    if payment.status != EarlyPayment.Status.PROCESSING:
        raise PaymentNotPending()
    return payment


def early_payment_sandbox_complete(
    payment: EarlyPayment, amount: int | None = None
) -> EarlyPayment:
    """The customer pays the pending payment (`amount`: what they sent; another
    amount than the payment's is refused, 422, changing nothing). Its
    `charge.success` goes through the processor's event path, so it settles
    exactly as Paystack's would (confirmations.py)."""
    _pending(payment)
    sandbox_offline_complete(reference=payment.reference, amount=amount)
    return EarlyPayment.objects.select_related("plan").get(pk=payment.pk)


def early_payment_sandbox_expire(payment: EarlyPayment) -> EarlyPayment:
    """The pending payment's time runs out now: the sandbox's account or code
    stops taking money, and the payment ends as the expiry job ends it
    (installments back, `payment.failed` `expired`)."""
    _pending(payment)
    try:
        sandbox_offline_expire(reference=payment.reference)
    except SandboxChargeNotFound:
        pass  # the processor never opened it: nothing to stop there
    except SandboxChargeNotPending:
        # Paid meanwhile: its charge.success settles it (or has).
        pass
    return early_payment_expire(payment=payment)


EARLY_PAYMENTS = SandboxPayments(
    find=early_payment_of_merchant,
    complete=early_payment_sandbox_complete,
    expire=early_payment_sandbox_expire,
    output=early_payment_output,
)
