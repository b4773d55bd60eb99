import re
import uuid
from datetime import date

from django.utils import timezone

from config.db.rows import OneRow
from installments.plans import rules

from .models import (
    SESSION_TOKEN_PREFIX,
    CheckoutSession,
    IdempotencyRecord,
    PaymentLink,
)

# Anything else cannot be a token; refusing it early also keeps bytes PostgreSQL
# rejects (NUL) away from the query.
SESSION_TOKEN_SHAPE = re.compile(rf"{SESSION_TOKEN_PREFIX}_[0-9A-Za-z]{{1,36}}")
LINK_SLUG_SHAPE = re.compile(r"[0-9A-Za-z]{1,16}")


# Looked up by every session creation: the SQL is written once (config/db/rows.py).
_RECORD = OneRow(IdempotencyRecord, equals=("merchant", "key"), parent="session")


def idempotency_record(*, merchant, key: uuid.UUID) -> IdempotencyRecord | None:
    """The record of `key` for `merchant`, live or past its 24 hours (the caller
    reads `expires_at`: an expired record frees the key)."""
    return _RECORD.first(merchant=merchant.pk, key=key)


def session_by_token(token: str) -> CheckoutSession | None:
    if not SESSION_TOKEN_SHAPE.fullmatch(token):
        return None
    return (
        CheckoutSession.objects.select_related("merchant").filter(token=token).first()
    )


def session_of_checkout_path(path: str) -> CheckoutSession | None:
    """The session whose hosted checkout page `path` is (`/checkout/<token>`,
    any page under it, with a query or not), or None."""
    parts = path.split("?", 1)[0].strip("/").split("/")
    if len(parts) < 2 or parts[0] != "checkout":
        return None
    return session_by_token(parts[1])


def order_is_paid(*, merchant, order_reference: str) -> bool:
    return CheckoutSession.objects.filter(
        merchant=merchant,
        order_reference=order_reference,
        status=CheckoutSession.Status.COMPLETED,
    ).exists()


def plan_preview(
    *,
    merchant,
    score: int,
    amount: int,
    schedule_type: str,
    installment_count: int,
    preferred_day: rules.PreferredDay = None,
    checkout_date: date | None = None,
) -> rules.PlanTerms:
    """Endpoint 3: the terms a checkout today would get, with the due dates it
    would really have (working days, the preferred day). Creates nothing."""
    return rules.plan_terms(
        amount=amount,
        score=score,
        schedule_type=schedule_type,
        installment_count=installment_count,
        config=rules.PlanConfig.of(merchant),
        start=checkout_date or timezone.localdate(),
        preferred_day=preferred_day,
    )


def payment_links_of(merchant):
    return PaymentLink.objects.select_related("merchant").filter(merchant=merchant)


def payment_link_by_slug(slug: str) -> PaymentLink | None:
    if not LINK_SLUG_SHAPE.fullmatch(slug):
        return None
    return PaymentLink.objects.select_related("merchant").filter(slug=slug).first()
