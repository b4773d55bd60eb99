"""Payout runs and the two sides (DESIGN section 21): a run pays each side's
wallet on its own, an account named by its id is paid on both sides, and a
suspended account's test side is not paid."""

import pytest

from merchants import services as merchant_services
from payments.models import Payout
from payments.payouts.services import payouts_run

from ..conftest import make_merchant_with_key
from .conftest import credit_wallet, set_payout_account

pytestmark = pytest.mark.django_db


@pytest.fixture
def account(fresh_cache):
    """An account with 200,000 kobo collected live and 160,000 on test, each
    side with its payout account."""
    live = make_merchant_with_key().merchant
    test = merchant_services.test_side_for(live)
    for side, amount in ((live, 200_000), (test, 160_000)):
        set_payout_account(side)
        credit_wallet(side, amount)
    return live, test


def paid(merchant) -> list[int]:
    return list(
        Payout.objects.filter(merchant=merchant).values_list("amount", flat=True)
    )


def test_an_account_named_by_its_id_is_paid_on_each_side_from_its_own_wallet(
    account,
):
    live, test = account
    other = make_merchant_with_key().merchant
    set_payout_account(other)
    credit_wallet(other, 300_000)

    payouts_run(merchant_ids=[live.public_id])

    assert paid(live) == [195_000]
    assert paid(test) == [156_000]
    assert paid(other) == []  # not named


def test_a_suspended_accounts_test_side_is_not_paid(account):
    live, test = account
    merchant_services.merchant_suspend(merchant=live)

    payouts_run()

    assert paid(live) == [] and paid(test) == []
