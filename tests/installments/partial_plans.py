"""Plans whose card allows a partial debit at the last retry."""

from datetime import timedelta

from installments.collection import PassSummary
from installments.plans.models import Installment
from merchants.models import Merchant
from payments.gateway.processors.sandbox.values import CARD_PARTIAL_FUNDS

from .conftest import (
    collect,
    make_active_plan,
)
from .failed_collections import only_card

RETRY_DAYS = (1, 3, 7)


def partial_plan(percent: int | None = 50, card: str = CARD_PARTIAL_FUNDS):
    """An active plan whose customer now has only `card`, its merchant's
    partial collection at `percent` (None: off)."""
    setup = make_active_plan()
    Merchant.objects.filter(pk=setup.owner.merchant.pk).update(
        partial_collection_min_percent=percent
    )
    only_card(setup, card)
    return setup


def first_three_attempts(first: Installment) -> None:
    """The attempt on the due date and the retries on the due date + 1 and 3."""
    collect(first.due_date)
    for days in RETRY_DAYS[:2]:
        collect(first.due_date + timedelta(days=days))


def last_retry(first: Installment) -> PassSummary:
    return collect(first.due_date + timedelta(days=RETRY_DAYS[-1]))


def refreshed(installment: Installment) -> Installment:
    installment.refresh_from_db()
    return installment
