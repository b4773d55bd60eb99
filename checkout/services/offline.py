"""The deposit by bank transfer or USSD at the hosted checkout (DESIGN
section 17), the same three steps as a charged deposit (completion.py):

1. Claim (one durable transaction): the plan is prepared with its terms and a
   deposit attempt is opened `processing` with its channel and `expires_at`
   (30 minutes), its reference `<plan id>_d<n>`, and committed.
2. Ask the processor for the account or the code (`charge_offline`), outside
   any transaction; what it answers is kept on the attempt for the page.
3. Settle: the processor's `charge.success`, verified (`GET
   /transaction/verify`) and of exactly the deposit's amount, settles it as a
   card deposit settles (`deposit_offline_confirm`, in the transaction of the
   processor's event): plan active, ledger, `payment.success` with its
   `channel`, session completed. At `expires_at` the sweep
   (`deposits_offline_expire`, every minute) verifies the reference once more
   and, unpaid, fails the attempt with reason `expired` (`payment.failed`);
   the customer may start again while the session is open.

While the attempt is in flight no other deposit of the plan may open (409
`payment_in_progress`), so a transfer and a card can never both pay it.
"""

import logging
from datetime import timedelta

from django.utils import timezone

from installments.deposits import services as plans
from installments.deposits.consent import Consent
from installments.deposits.models import DepositAttempt
from installments.deposits.selectors import (
    deposit_offline_by_public_id,
    deposits_offline_due_to_expire,
)
from installments.plans import rules
from payments.gateway.declines import EXPIRED
from payments.gateway.errors import ProcessorError, ProcessorRefused, ProcessorTimeout
from payments.gateway.hooks import ConfirmedCharge
from payments.gateway.processors import processor_of
from payments.gateway.processors.base import USSD_BANKS, PayChannel
from payments.methods.services.saved_charges import FAILED, ChargeOutcome

from .. import selectors
from ..errors import SessionNotFound
from .completion import (
    _claim,
    _settle,
    consent_required,
    deposit_metadata,
    settle_in_transaction,
)

logger = logging.getLogger("checkout")

# How long the customer has to pay the account or dial the code.
OFFLINE_DEPOSIT_LIFETIME = timedelta(minutes=30)

__all__ = [
    "OFFLINE_DEPOSIT_LIFETIME",
    "deposit_offline_by_public_id",
    "deposit_offline_confirm",
    "deposit_offline_start",
    "deposits_offline_expire",
]


def deposit_offline_start(
    *,
    token: str,
    customer,
    schedule_type: str,
    installment_count: int,
    channel: str,
    consent: Consent | None,
    ussd_bank: str = "",
    payment_method_id: str = "",
    preferred_day: rules.PreferredDay = None,
) -> DepositAttempt:
    """Open the deposit by `channel` (bank transfer or USSD with `ussd_bank`)
    and ask the processor for what the customer pays by. `payment_method_id`
    is the method the installments are collected from; empty only at a
    merchant with `manual_collection` (a manual plan). Raises what
    `session_complete` raises before charging, and 402 `payment_failed` when
    the processor refuses at once; an unanswered call leaves the attempt in
    flight (its page says so; the sweep settles it at `expires_at`)."""
    if channel not in PayChannel.OFFLINE or (
        channel == PayChannel.USSD and ussd_bank not in USSD_BANKS
    ):
        raise ValueError(f"not an offline channel: {channel!r} {ussd_bank!r}")
    session = selectors.session_by_token(token)
    if session is None:
        raise SessionNotFound()
    consent = consent_required(consent)
    attempt = _claim(
        session=session,
        customer=customer,
        schedule_type=schedule_type,
        installment_count=installment_count,
        preferred_day=preferred_day,
        method_id=payment_method_id,
        consent=consent,
        channel=channel,
        expires_at=timezone.now() + OFFLINE_DEPOSIT_LIFETIME,
    )
    try:
        offline = processor_of(attempt.plan.merchant).charge_offline(
            email=attempt.customer.email,
            amount=attempt.amount,
            reference=attempt.reference,
            channel=channel,
            expires_at=attempt.expires_at,
            ussd_bank=ussd_bank,
            currency=attempt.currency,
            metadata=deposit_metadata(attempt),
        )
    except (ProcessorError, ProcessorTimeout) as error:
        logger.warning("Offline deposit %s: no answer: %s", attempt.reference, error)
        return attempt
    except ProcessorRefused as error:
        return _settle(attempt, _refused(attempt, str(error)))
    if not offline.pending:
        return _settle(attempt, _refused(attempt, offline.gateway_response))
    return plans.deposit_instructions_record(attempt=attempt, offline=offline)


def _refused(attempt: DepositAttempt, message: str) -> ChargeOutcome:
    return ChargeOutcome(
        status=FAILED,
        reference=attempt.reference,
        failure_reason="processor_error",
        message=message or "The payment processor refused the payment.",
    )


def deposit_offline_confirm(confirmed: ConfirmedCharge) -> bool:
    """The processor's verified `charge.success` for a deposit by transfer or
    USSD (a charge confirmation handler, payments/gateway/hooks.py): settles
    it in the caller's transaction when the amount is exactly the deposit's.
    False for a reference that is not such a deposit."""
    attempt = (
        DepositAttempt.objects.filter(
            reference=confirmed.reference, channel__in=PayChannel.OFFLINE
        )
        .select_related("plan")
        .first()
    )
    if attempt is None:
        return False
    if attempt.status != DepositAttempt.Status.PROCESSING:
        return True  # settled already (or expired: see docs/paying.md)
    if confirmed.amount != attempt.amount or confirmed.currency != attempt.currency:
        logger.error(
            "Deposit %s confirmed for %s %s, not %s %s: not applied",
            attempt.reference,
            confirmed.amount,
            confirmed.currency,
            attempt.amount,
            attempt.currency,
        )
        return True
    settle_in_transaction(
        attempt,
        ChargeOutcome(
            status="succeeded",
            reference=attempt.reference,
            amount=confirmed.amount,
            processor_id=confirmed.processor_id,
        ),
    )
    return True


def deposit_offline_expire(attempt: DepositAttempt) -> DepositAttempt:
    """Settle an offline deposit whose time is up by verifying its reference:
    paid (exactly the deposit) settles it; anything else but an unanswered
    verification fails it with reason `expired`."""
    try:
        result = processor_of(attempt.plan.merchant).verify_transaction(
            reference=attempt.reference
        )
    except (ProcessorError, ProcessorTimeout, ProcessorRefused) as error:
        logger.warning("Verifying deposit %s failed: %s", attempt.reference, error)
        return attempt  # the processor could not say: the next sweep asks again
    if result is not None and result.succeeded and result.amount == attempt.amount:
        return _settle(
            attempt,
            ChargeOutcome(
                status="succeeded",
                reference=attempt.reference,
                amount=result.amount,
                processor_id=result.processor_id,
            ),
        )
    return _settle(
        attempt,
        ChargeOutcome(
            status=FAILED,
            reference=attempt.reference,
            failure_reason=EXPIRED,
            message="Not paid before it expired.",
        ),
    )


def deposits_offline_expire(*, now=None) -> int:
    """The sweep (every minute): each offline deposit past its `expires_at`."""
    return sum(
        1
        for attempt in deposits_offline_due_to_expire(now=now or timezone.now())
        if deposit_offline_expire(attempt).status != DepositAttempt.Status.PROCESSING
    )
