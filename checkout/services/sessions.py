"""Checkout sessions and the idempotency of their creation (endpoint 2)."""

import uuid
from dataclasses import dataclass
from datetime import timedelta

from django.db import IntegrityError, transaction
from django.utils import timezone

from config.api.errors import UnsupportedCurrency
from installments import rules

from .. import selectors
from ..errors import OrderAlreadyPaid
from ..models import CheckoutSession, IdempotencyRecord

SESSION_LIFETIME = timedelta(minutes=30)
IDEMPOTENCY_RETENTION = timedelta(hours=24)
SUPPORTED_CURRENCIES = ("NGN",)
CREATED = 201


@dataclass(frozen=True)
class SessionAnswer:
    """A session and how to answer for it: freshly created or replayed."""

    session: CheckoutSession
    status_code: int
    replayed: bool


def _replay(record: IdempotencyRecord) -> SessionAnswer:
    return SessionAnswer(
        session=record.session, status_code=record.response_status, replayed=True
    )


def session_create(
    *,
    merchant,
    amount: int,
    currency: str,
    title: str,
    order_reference: str,
    customer_email: str = "",
    idempotency_key: uuid.UUID | None = None,
    payment_link=None,
) -> SessionAnswer:
    """Open a 30-minute checkout session, or replay the one `idempotency_key`
    created for this merchant in the last 24 hours (whatever this body says).

    The key's record is inserted in the session's transaction under a unique
    (merchant, key) constraint: of N simultaneous requests one commits, the other
    inserts fail (on PostgreSQL they wait for the winner's commit first) and those
    requests answer with the winner's session. A failed request stores nothing, so
    the key stays free for a corrected retry.
    """
    if idempotency_key is not None:
        record = selectors.live_idempotency_record(
            merchant=merchant, key=idempotency_key
        )
        if record is not None:
            return _replay(record)

    rules.check_amount(amount)
    if currency not in SUPPORTED_CURRENCIES:
        raise UnsupportedCurrency()

    try:
        with transaction.atomic(durable=True):
            now = timezone.now()
            if idempotency_key is not None:
                # A record past its 24 hours frees the key for a new session.
                IdempotencyRecord.objects.filter(
                    merchant=merchant, key=idempotency_key, expires_at__lte=now
                ).delete()
            if selectors.order_is_paid(
                merchant=merchant, order_reference=order_reference
            ):
                raise OrderAlreadyPaid()
            session = CheckoutSession.objects.create(
                merchant=merchant,
                amount=amount,
                currency=currency,
                title=title,
                order_reference=order_reference,
                customer_email=customer_email,
                payment_link=payment_link,
                created_at=now,
                expires_at=now + SESSION_LIFETIME,
            )
            if idempotency_key is not None:
                IdempotencyRecord.objects.create(
                    merchant=merchant,
                    key=idempotency_key,
                    session=session,
                    response_status=CREATED,
                    created_at=now,
                    expires_at=now + IDEMPOTENCY_RETENTION,
                )
    except IntegrityError:
        record = (
            selectors.live_idempotency_record(merchant=merchant, key=idempotency_key)
            if idempotency_key is not None
            else None
        )
        if record is None:
            raise
        return _replay(record)
    return SessionAnswer(session=session, status_code=CREATED, replayed=False)


def idempotency_records_purge() -> int:
    """Delete records past their 24 hours; their keys are free again either way."""
    deleted, _ = IdempotencyRecord.objects.filter(
        expires_at__lte=timezone.now()
    ).delete()
    return deleted
