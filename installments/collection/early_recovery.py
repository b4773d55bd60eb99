"""The engine's pass settles early payments left in flight (installments/early/),
as it settles its own attempts (claims.py `claim_stale`): once a payment's lease
has ended (a crash between the charge and its record, a processor that never
answered), it is leased again in a short transaction, its own reference is
verified at the processor, and the outcome is recorded. A reference the
processor has never seen was never charged (no request of it can still arrive
after the lease): the installments go back as they were, to be collected on
their dates under the engine's own references. Never a new charge.

A bank transfer or USSD payment is not one of these: it is "pending" at the
processor until the customer pays, and its lease is its expiry, which the
early payments' own expiry job ends (early/expiry.py), never this pass.
"""

from datetime import datetime

from django.db import transaction

from payments.gateway.processors import processor_of
from payments.gateway.processors.base import PayChannel
from payments.methods.services.saved_charges import charge_verify

from ..early.models import EarlyPayment
from ..early.outcomes import early_payment_settle, early_payments_settle_each
from ..plans.models import Installment
from ..plans.rules import LEASE


def _lease_stale(*, now: datetime, limit: int) -> list[EarlyPayment]:
    with transaction.atomic(durable=True):
        payments = list(
            EarlyPayment.objects.select_for_update(skip_locked=True)
            .filter(status=EarlyPayment.Status.PROCESSING, leased_until__lte=now)
            .exclude(channel__in=PayChannel.OFFLINE)
            .order_by("leased_until", "id")[:limit]
        )
        if payments:
            EarlyPayment.objects.filter(pk__in=[p.pk for p in payments]).update(
                leased_until=now + LEASE
            )
            Installment.objects.filter(
                early_payment_items__early_payment__in=payments,
                status=Installment.Status.PROCESSING,
            ).update(next_attempt_at=now + LEASE, updated_at=now)
    return payments


def early_payments_recover(*, now: datetime, limit: int) -> int:
    """Settle up to `limit` early payments whose lease ended; how many were
    settled (the others stay in flight: the processor could not say). Never
    raises: a payment that cannot be settled now is tried on a later pass."""
    return early_payments_settle_each(
        _lease_stale(now=now, limit=limit),
        _verified_and_settled,
        failure="Early payment %s could not be settled; it stays in flight",
    )


def _verified_and_settled(payment: EarlyPayment) -> EarlyPayment:
    # Charged at its method's processor, which is its plan's side's.
    outcome = charge_verify(
        processor=processor_of(payment.plan.merchant),
        reference=payment.reference,
        unseen_is_failed=True,
    )
    return early_payment_settle(payment=payment, outcome=outcome)
