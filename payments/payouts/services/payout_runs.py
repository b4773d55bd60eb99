"""The payout pass: the daily schedule and `python manage.py run_payouts`."""

import logging
from collections.abc import Callable
from dataclasses import dataclass, field

from django.db.models import Q
from django.utils import timezone

from merchants.models import TEST_SIDE_SUFFIX, Merchant

from ...ledger.selectors import wallets_available
from ..models import Payout
from .payouts import (
    MINIMUM_PAYOUT,
    STALE_AFTER,
    payout_check,
    payout_create,
    payout_transfer_request,
)

logger = logging.getLogger("payments.payouts")


@dataclass
class PayoutRun:
    created: list[str] = field(default_factory=list)
    rechecked: int = 0
    errors: int = 0


def merchants_due_payout(merchant_ids: list[str] | None = None) -> list[Merchant]:
    """Active merchants with a payout account whose wallet holds the minimum:
    merchant rows of either side (DESIGN section 21; `merchant_ids` names
    accounts, each with its test side), a test side not while its account is
    suspended."""
    public_ids = [
        public_id
        for public_id, available in wallets_available().items()
        if available >= MINIMUM_PAYOUT
    ]
    if merchant_ids is not None:
        named = _with_test_sides(merchant_ids)
        public_ids = [mid for mid in public_ids if mid in named]
    return list(
        Merchant.objects.filter(public_id__in=public_ids, status=Merchant.Status.ACTIVE)
        .exclude(Q(payout_bank_code="") | Q(payout_account_number=""))
        .exclude(live_account__status=Merchant.Status.SUSPENDED)
        .order_by("pk")
    )


def _with_test_sides(merchant_ids: list[str]) -> set[str]:
    """The rows of the accounts named: each live id and its test side's."""
    return {*merchant_ids, *(f"{mid}{TEST_SIDE_SUFFIX}" for mid in merchant_ids)}


def payouts_stale(merchant_ids: list[str] | None = None) -> list[Payout]:
    """Open payouts whose request or outcome may have been lost."""
    cutoff = timezone.now() - STALE_AFTER
    stale = Payout.objects.filter(status__in=Payout.OPEN, updated_at__lte=cutoff)
    if merchant_ids is not None:
        stale = stale.filter(merchant__public_id__in=_with_test_sides(merchant_ids))
    return list(stale.order_by("pk"))


def _recheck(run: PayoutRun, payout: Payout) -> None:
    if payout.status == Payout.Status.PENDING:
        payout_transfer_request(payout_id=payout.pk)
    else:
        payout_check(payout_id=payout.pk)
    run.rechecked += 1


def _pay(run: PayoutRun, merchant) -> None:
    payout = payout_create(merchant=merchant)
    if payout is not None:
        run.created.append(payout.public_id)
        payout_transfer_request(payout_id=payout.pk)


def payouts_run(
    *,
    merchant_ids: list[str] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> PayoutRun:
    """Look again at stale open payouts, then pay every merchant due a payout.
    One merchant's failure is logged and never stops the rest."""
    run = PayoutRun()
    steps = [
        (_recheck, payout, "Payout %s could not be rechecked", payout.public_id)
        for payout in payouts_stale(merchant_ids)
    ]
    steps += [
        (_pay, merchant, "Payout for %s failed", merchant.public_id)
        for merchant in merchants_due_payout(merchant_ids)
    ]
    for done, (step, item, failure, name) in enumerate(steps, start=1):
        try:
            step(run, item)
        except Exception:
            logger.exception(failure, name)
            run.errors += 1
        if progress:
            progress(done, len(steps))
    return run
