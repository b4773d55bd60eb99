"""Checkout sessions and the idempotency of their creation (endpoint 2)."""

import uuid
from contextlib import nullcontext
from dataclasses import dataclass
from datetime import timedelta
from functools import cache

from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from config.api.errors import UnsupportedCurrency
from config.api.idempotency import IDEMPOTENCY_RETENTION
from config.db.rows import insert_values, typed_select
from installments.plans import rules

from .. import selectors
from ..errors import OrderAlreadyPaid
from ..models import CheckoutSession, IdempotencyRecord

SESSION_LIFETIME = timedelta(minutes=30)
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


def _live(record: IdempotencyRecord | None, now) -> IdempotencyRecord | None:
    return record if record is not None and record.expires_at > now else None


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

    The key's record is inserted atomically with the session under a unique
    (merchant, key) constraint: of N simultaneous requests one commits, the other
    inserts fail (on PostgreSQL they wait for the winner's commit first) and those
    requests answer with the winner's session. A failed request stores nothing, so
    the key stays free for a corrected retry.
    """
    now = timezone.now()
    expired = None
    if idempotency_key is not None:
        record = selectors.idempotency_record(merchant=merchant, key=idempotency_key)
        if _live(record, now) is not None:
            return _replay(record)
        expired = record

    rules.check_amount(amount)
    if currency not in SUPPORTED_CURRENCIES:
        raise UnsupportedCurrency()

    session = CheckoutSession(
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
    record = (
        IdempotencyRecord(
            merchant=merchant,
            key=idempotency_key,
            response_status=CREATED,
            created_at=now,
            expires_at=now + IDEMPOTENCY_RETENTION,
        )
        if idempotency_key is not None
        else None
    )
    return _insert(session, record, expired=expired, now=now)


def _insert(
    session: CheckoutSession,
    record: IdempotencyRecord | None,
    *,
    expired: IdempotencyRecord | None,
    now,
) -> SessionAnswer:
    """Write the session and its key's record, unless the order is paid; a
    concurrent request that won the same key is answered with its session."""
    try:
        if expired is not None:
            # A record past its 24 hours frees the key for a new session.
            IdempotencyRecord.objects.filter(
                pk=expired.pk, expires_at__lte=now
            ).delete()
        if connection.vendor == "postgresql":
            created = _insert_in_one_statement(session, record)
        else:
            created = _insert_in_one_transaction(session, record)
    except IntegrityError:
        winner = (
            selectors.idempotency_record(merchant=session.merchant, key=record.key)
            if record is not None
            else None
        )
        if _live(winner, timezone.now()) is None:
            raise
        return _replay(winner)
    if not created:
        raise OrderAlreadyPaid()
    return SessionAnswer(session=session, status_code=CREATED, replayed=False)


def _insert_in_one_transaction(
    session: CheckoutSession, record: IdempotencyRecord | None
) -> bool:
    """The portable path: check the order, insert both rows, in one transaction.
    False (nothing written) when the order is already paid."""
    with transaction.atomic():
        if selectors.order_is_paid(
            merchant=session.merchant, order_reference=session.order_reference
        ):
            return False
        session.save(force_insert=True)
        if record is not None:
            record.session = session
            record.save(force_insert=True)
    return True


def _insert_in_one_statement(
    session: CheckoutSession, record: IdempotencyRecord | None
) -> bool:
    """PostgreSQL: the same check and inserts as one statement, so one round trip
    and one commit (this is the hot path of endpoint 2, bench/RESULTS.md).

    The session row is inserted only if no completed session holds the order; the
    record's row references it and its unique (merchant, key) constraint fails the
    whole statement for a concurrent loser. Outside a transaction the statement is
    atomic on its own; inside one (a caller's, or a test's) it runs in a savepoint
    so that a failure leaves the caller's transaction usable.
    """
    sql = _one_statement_sql(with_record=record is not None)
    params = insert_values(session) + [
        session.merchant_id,
        session.order_reference,
        session.Status.COMPLETED,
    ]
    if record is not None:
        params += insert_values(record, skip="session_id")
    with (
        transaction.atomic() if connection.in_atomic_block else nullcontext(),
        connection.cursor() as cursor,
    ):
        cursor.execute(sql, params)
        row = cursor.fetchone()
    if row is None:
        return False
    session.pk = row[0]
    session._state.adding = False
    session._state.db = connection.alias
    if record is not None:
        record.session = session
    return True


@cache
def _one_statement_sql(*, with_record: bool) -> str:
    """Written once per process: see `_insert_in_one_statement`."""
    sessions = connection.ops.quote_name(CheckoutSession._meta.db_table)
    columns, selected = typed_select(CheckoutSession, {})
    sql = (
        f"WITH s AS (INSERT INTO {sessions} ({columns}) SELECT {selected} "  # noqa: S608
        f"WHERE NOT EXISTS (SELECT 1 FROM {sessions} WHERE merchant_id = %s "
        "AND order_reference = %s AND status = %s) RETURNING id)"
    )
    if with_record:
        records = connection.ops.quote_name(IdempotencyRecord._meta.db_table)
        columns, selected = typed_select(IdempotencyRecord, {"session_id": "s.id"})
        sql += f", r AS (INSERT INTO {records} ({columns}) SELECT {selected} FROM s)"  # noqa: S608
    return sql + " SELECT id FROM s"  # noqa: S608


def idempotency_records_purge() -> int:
    """Delete records past their 24 hours; their keys are free again either way."""
    deleted, _ = IdempotencyRecord.objects.filter(
        expires_at__lte=timezone.now()
    ).delete()
    return deleted
