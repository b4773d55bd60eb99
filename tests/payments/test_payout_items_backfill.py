"""The migration that added payout items records what past payouts paid out by
replaying each wallet's lines: it finds the same lines as the live rule
(issue 18), failed payouts' lines included in the next payout."""

import importlib

import pytest
from django.apps import apps

from payments.models import PayoutItem
from payments.payouts.services.payouts import payout_create, payout_fail

from ..conftest import make_merchant_with_key
from .commands import check_ledger
from .conftest import credit_wallet, set_payout_account

pytestmark = pytest.mark.django_db

migration = importlib.import_module("payments.migrations.0018_payout_items")


def recorded() -> set[tuple[int, int]]:
    return set(PayoutItem.objects.values_list("payout_id", "line_id"))


def test_replaying_the_wallets_finds_what_each_payout_paid_out(fresh_cache):
    shops = [make_merchant_with_key().merchant for _ in range(2)]
    for shop in shops:
        set_payout_account(shop)
        shop.refresh_from_db()
    credit_wallet(shops[0], 150_000)
    failed = payout_create(merchant=shops[0])
    payout_fail(payout_id=failed.pk, reason="Account closed")
    credit_wallet(shops[1], 300_000)
    credit_wallet(shops[0], 20_000)
    payout_create(merchant=shops[0])
    payout_create(merchant=shops[1])
    credit_wallet(shops[0], 5_000)  # not paid out yet
    live = recorded()
    PayoutItem.objects.all()._raw_delete(PayoutItem.objects.db)

    migration.cover_past_payouts(apps, None)

    assert recorded() == live
    assert len(live) == 1 + 2 + 1  # failed: 1; its retry: 2; the other shop: 1
    assert "clean" in check_ledger()
