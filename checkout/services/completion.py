"""Completing a checkout session: the deposit is charged and the plan begins
(DESIGN sections 7 and 11).

Three steps, so that no row lock is held while the processor is called:

1. Claim (one durable transaction, the order's sessions locked): refuse a
   completed or expired session, compute the plan with the customer's score and
   the merchant's configuration, check the payment method is the customer's own
   and active, prepare the pending plan and open a deposit attempt with its own
   reference `<plan id>_d<n>`. Committed before the processor hears anything; a
   concurrent completion finds the attempt in flight and gets 409.
2. Charge the deposit on the method under that reference, outside any
   transaction.
3. Settle (one durable transaction): on success the plan activates, its
   installments are scheduled, the session completes, the ledger, events and
   the agreement record (installments/agreements, with its e-mail) are written
   together; on a decline the attempt fails, `payment.failed` goes out,
   and the session stays open for another method (402 `payment_failed`).

An attempt whose outcome was lost (crash, timeout) stays in flight and is settled
by verifying its reference once it is older than `STALE_ATTEMPT_AGE`, before the
next completion of the session (or by the sweeper task).
"""

import logging
from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from installments.agreements import services as agreements
from installments.deposits import services as plans
from installments.deposits.consent import Consent
from installments.deposits.models import DepositAttempt
from installments.plans import rules
from installments.plans import selectors as plan_selectors
from installments.plans.errors import PaymentInProgress
from installments.plans.models import PaymentPlan
from merchants.errors import MerchantNotActive
from payments.gateway.declines import decline_of
from payments.gateway.processors import processor_of
from payments.gateway.processors.base import PayChannel
from payments.methods import selectors as method_selectors
from payments.methods.errors import PaymentFailed, PaymentMethodNotFound
from payments.methods.services.saved_charges import (
    ChargeOutcome,
    charge_verify,
    saved_method_charge,
)

from .. import selectors
from ..errors import (
    OrderAlreadyPaid,
    PaymentMethodRequired,
    SessionCompleted,
    SessionExpired,
    SessionNotFound,
    TermsNotAccepted,
)
from ..models import CheckoutSession

logger = logging.getLogger("checkout")

# Far beyond the processor call's own timeouts: no request of an attempt this
# old can still reach the processor, so a reference it does not know was never
# charged.
STALE_ATTEMPT_AGE = timedelta(minutes=2)


def _locked_order(
    session: CheckoutSession,
) -> tuple[CheckoutSession, list[CheckoutSession]]:
    """Lock every session of the session's order, in id order (no deadlock
    between two sessions of one order); return this one, fresh, and them all."""
    rows = list(
        CheckoutSession.objects.select_for_update()
        .filter(
            merchant_id=session.merchant_id, order_reference=session.order_reference
        )
        .order_by("pk")
    )
    return next(row for row in rows if row.pk == session.pk), rows


def _method_and_collection(
    *, customer, merchant, method_id: str, channel: str
) -> tuple:
    """(the method the deposit is charged on or, by transfer or USSD, the
    installments are collected from; the plan's collection). Without a method
    only by transfer or USSD at a merchant with `manual_collection` on: a
    manual plan (DESIGN section 17)."""
    if not method_id:
        if channel in PayChannel.OFFLINE and merchant.manual_collection:
            return None, PaymentPlan.Collection.MANUAL
        raise PaymentMethodRequired()
    # Of the session's side only: another side's method is not found.
    method = method_selectors.own_payment_method(
        customer, method_id, livemode=merchant.livemode
    )
    if not method.is_active:
        raise PaymentMethodNotFound(
            "This payment method was deactivated by the bank or card issuer; "
            "choose another one."
        )
    return method, PaymentPlan.Collection.AUTO


def _claim(
    *,
    session: CheckoutSession,
    customer,
    schedule_type,
    installment_count,
    preferred_day,
    method_id,
    consent: Consent,
    channel: str = "",
    expires_at=None,
) -> DepositAttempt:
    with transaction.atomic(durable=True):
        session, order_sessions = _locked_order(session)
        _refuse_closed(session, order_sessions)
        merchant = session.merchant
        customer = type(customer).objects.get(pk=customer.pk)  # today's score
        terms = rules.plan_terms(
            amount=session.amount,
            score=customer.score,
            schedule_type=schedule_type,
            installment_count=installment_count,
            config=rules.PlanConfig.of(merchant),
            start=timezone.localdate(),
            preferred_day=preferred_day,
        )
        method, collection = _method_and_collection(
            customer=customer, merchant=merchant, method_id=method_id, channel=channel
        )
        plan = plans.plan_prepare(
            plan=session.plan,
            merchant=merchant,
            customer=customer,
            order_reference=session.order_reference,
            currency=session.currency,
            terms=terms,
            score=customer.score,
            collection=collection,
        )
        if session.plan_id is None:
            session.plan = plan
            session.save(update_fields=["plan"])
        return plans.deposit_attempt_open(
            plan=plan,
            payment_method=method,
            consent=consent,
            channel=channel,
            expires_at=expires_at,
        )


def consent_required(consent: Consent | None) -> Consent:
    """No deposit without the customer's consent to the key facts."""
    if consent is None:
        raise TermsNotAccepted()
    return consent


def _refuse_closed(session: CheckoutSession, order_sessions) -> None:
    """A session (locked, with its order's) that cannot take a deposit now."""
    state = session.status_at()
    if state == CheckoutSession.Status.COMPLETED:
        raise SessionCompleted()
    if state == CheckoutSession.Status.EXPIRED:
        raise SessionExpired()
    if not session.merchant.is_active:
        raise MerchantNotActive()
    others = [row for row in order_sessions if row.pk != session.pk]
    if any(row.status == CheckoutSession.Status.COMPLETED for row in others):
        raise OrderAlreadyPaid()
    if DepositAttempt.objects.filter(
        plan__checkout_session__in=others,
        status=DepositAttempt.Status.PROCESSING,
    ).exists():
        raise PaymentInProgress(
            "A deposit for this order is being processed in another checkout session."
        )


def _settle(attempt: DepositAttempt, outcome: ChargeOutcome) -> DepositAttempt:
    """Record the outcome of an attempt still in flight; an attempt someone else
    settled meanwhile is returned as it is."""
    with transaction.atomic(durable=True):
        return settle_in_transaction(attempt, outcome)


def settle_in_transaction(
    attempt: DepositAttempt, outcome: ChargeOutcome
) -> DepositAttempt:
    """`_settle` inside the caller's transaction (the processor's confirmation
    of a transfer is recorded in the transaction of its event)."""
    with transaction.atomic(savepoint=False):
        session = (
            CheckoutSession.objects.select_for_update()
            .filter(plan_id=attempt.plan_id)
            .get()
        )
        attempt = DepositAttempt.objects.select_for_update().get(pk=attempt.pk)
        if attempt.status != DepositAttempt.Status.PROCESSING:
            return attempt
        if outcome.succeeded:
            plan = plans.deposit_succeeded(
                attempt=attempt, processor_id=outcome.processor_id
            )
            attempt.refresh_from_db()
            agreements.agreement_record(plan, attempt)
            session.transition_to(CheckoutSession.Status.COMPLETED)
        elif outcome.failed:
            plans.deposit_failed(
                attempt=attempt, reason=outcome.failure_reason, message=outcome.message
            )
        attempt.refresh_from_db()
    return attempt


def _answer(attempt: DepositAttempt) -> PaymentPlan:
    """The plan of a successful attempt, or the error the customer sees."""
    if attempt.status == DepositAttempt.Status.SUCCEEDED:
        return plan_selectors.plans_with_installments().get(pk=attempt.plan_id)
    if attempt.status == DepositAttempt.Status.FAILED:
        # The one decline table: a hard decline (an expired card) has already
        # taken the method out of the customer's choices.
        reason = decline_of(attempt.failure_reason).text
        raise PaymentFailed(
            f"The deposit could not be charged: {reason}. Choose another payment "
            "method and try again."
        )
    raise PaymentInProgress(
        "The payment processor has not confirmed the deposit yet; check the "
        "session again in a moment instead of paying a second time."
    )


def stale_attempt_settle(attempt: DepositAttempt) -> DepositAttempt:
    """Settle an attempt left in flight by verifying its reference."""
    # Charged at its method's processor, which is its session's side's.
    outcome = charge_verify(
        processor=processor_of(attempt.plan.merchant),
        reference=attempt.reference,
        unseen_is_failed=True,
    )
    if outcome.failed and outcome.failure_reason:
        logger.warning(
            "Deposit attempt %s settled as failed: %s",
            attempt.reference,
            outcome.message,
        )
    return _settle(attempt, outcome)


def stale_attempts_settle(*, older_than: timedelta = STALE_ATTEMPT_AGE) -> int:
    """Sweeper: settle every deposit attempt in flight for longer than that."""
    stale = DepositAttempt.objects.filter(
        status=DepositAttempt.Status.PROCESSING,
        created_at__lte=timezone.now() - older_than,
    ).exclude(channel__in=PayChannel.OFFLINE)
    return sum(
        1
        for attempt in stale
        if stale_attempt_settle(attempt).status != DepositAttempt.Status.PROCESSING
    )


def _settle_stale_attempt_of(session: CheckoutSession) -> None:
    attempt = (
        DepositAttempt.objects.filter(
            plan__checkout_session=session,
            status=DepositAttempt.Status.PROCESSING,
            created_at__lte=timezone.now() - STALE_ATTEMPT_AGE,
        )
        .exclude(channel__in=PayChannel.OFFLINE)
        .first()
    )
    if attempt is not None:
        stale_attempt_settle(attempt)


def session_complete(
    *,
    token: str,
    customer,
    schedule_type: str,
    installment_count: int,
    payment_method_id: str,
    consent: Consent | None,
    preferred_day: rules.PreferredDay = None,
) -> PaymentPlan:
    """Charge the deposit and start the plan; see the module's docstring.
    `preferred_day` (monthly plans) is kept on the plan: the due dates made when
    the deposit is collected snap to it. `consent` is the customer's agreement
    to the key facts (DESIGN section 18), kept on the deposit attempt.

    Raises 404 (session), 422 `terms_not_accepted` without consent (before
    anything is written), 404 (payment method), 409 (`session_completed`,
    `session_expired`, `payment_in_progress`, `order_already_paid`), 422 (plan
    rules), 400 `invalid_preferred_day` or 402 `payment_failed` (the decline is
    recorded first).
    """
    session = selectors.session_by_token(token)
    if session is None:
        raise SessionNotFound()
    consent = consent_required(consent)
    _settle_stale_attempt_of(session)
    attempt = _claim(
        session=session,
        customer=customer,
        schedule_type=schedule_type,
        installment_count=installment_count,
        preferred_day=preferred_day,
        method_id=payment_method_id,
        consent=consent,
    )
    outcome = saved_method_charge(
        method=attempt.payment_method,
        amount=attempt.amount,
        reference=attempt.reference,
        currency=attempt.currency,
        metadata=deposit_metadata(attempt),
    )
    return _answer(_settle(attempt, outcome))


def deposit_metadata(attempt: DepositAttempt) -> dict:
    """What the processor keeps with a deposit's charge, however it is paid."""
    return {
        "purpose": "deposit",
        "payment_plan_id": attempt.plan.public_id,
        "order_reference": attempt.plan.order_reference,
    }


def abandoned_plans_cancel() -> int:
    """Pending plans whose session expired without a paid deposit (and with no
    attempt still in flight) become `cancelled`."""
    candidates = PaymentPlan.objects.filter(
        status=PaymentPlan.Status.PENDING,
        checkout_session__expires_at__lte=timezone.now(),
    ).values_list("pk", flat=True)
    cancelled = 0
    for plan_pk in candidates:
        with transaction.atomic(durable=True):
            session = (
                CheckoutSession.objects.select_for_update()
                .filter(plan_id=plan_pk)
                .get()
            )
            plan = PaymentPlan.objects.select_for_update().get(pk=plan_pk)
            if (
                plan.status != PaymentPlan.Status.PENDING
                or session.status_at() != CheckoutSession.Status.EXPIRED
                or plan.deposit_attempts.filter(
                    status=DepositAttempt.Status.PROCESSING
                ).exists()
            ):
                continue
            plans.plan_cancel(plan=plan)
            cancelled += 1
    return cancelled
