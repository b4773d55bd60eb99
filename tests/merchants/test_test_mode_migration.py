"""Test mode's migrations (DESIGN section 21) on a database seeded before them:
merchants 0013 (the merchant's side, the key's side), payments 0025 and 0026
(methods' and ledger transactions' sides), installments 0023 (the
installment's side). Every existing row comes out on the live side, an old
key still authenticates, and the engine's live pass reads the old rows.
(Payment methods' and ledger transactions' migrations have their own tests in
tests/payments.)"""

from datetime import timedelta

import pytest
from django.utils import timezone

from merchants.models import hash_api_key

from ..migrating import latest, migrate

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [
    ("merchants", "0012_two_factor"),
    ("payments", "0024_disputes"),
    ("installments", "0022_disputes"),
]
AFTER = [
    ("merchants", "0013_test_mode"),
    ("payments", "0026_ledger_transaction_livemode"),
    ("installments", "0023_installment_side"),
]
OLD_KEY = "service_live_sk_from_before_test_mode_000"


def seed(old) -> dict:
    now = timezone.now()
    merchant = old.get_model("merchants", "Merchant").objects.create(
        public_id="mer_migrationsides0001",
        email="old@shop.example.com",
        business_name="Old shop",
        business_url="https://shop.example.com",
        status="active",
        api_access_enabled=True,
    )
    old.get_model("merchants", "ApiKey").objects.create(
        merchant=merchant, key_hash=hash_api_key(OLD_KEY), display_prefix="from"
    )
    customer = old.get_model("payments", "Customer").objects.create(
        public_id="cus_migrationsides0001",
        email="old@mail.example.com",
        first_name="Old",
        last_name="Customer",
    )
    plan = old.get_model("installments", "PaymentPlan").objects.create(
        public_id="plan_migrationsides0001",
        merchant=merchant,
        customer=customer,
        order_reference="order-old",
        total_amount=200_000,
        deposit_amount=100_000,
        deposit_percent=50,
        tier="B",
        customer_score=500,
        schedule_type="monthly",
        installment_count=1,
        installment_amounts=[100_000],
        status="active",
        activated_at=now,
        status_changed_at=now,
    )
    old.get_model("installments", "Installment").objects.create(
        public_id="inst_migrationsides0001",
        plan=plan,
        sequence=1,
        amount=100_000,
        original_amount=100_000,
        due_date=timezone.localdate(now),
        next_attempt_at=now - timedelta(hours=1),
        status_changed_at=now,
    )
    return {"merchant": merchant.pk}


def test_every_row_from_before_is_live_and_an_old_key_still_works(api):
    old = migrate(BEFORE)
    try:
        seeded = seed(old)

        new = migrate(AFTER)

        Merchant = new.get_model("merchants", "Merchant")
        merchant = Merchant.objects.get(pk=seeded["merchant"])
        assert (merchant.livemode, merchant.live_account_id) == (True, None)
        assert not Merchant.objects.filter(livemode=False).exists()
        key = new.get_model("merchants", "ApiKey").objects.get()
        assert key.livemode is True
        installment = new.get_model("installments", "Installment").objects.get()
        assert installment.livemode is True
    finally:
        latest()

    from installments.collection import claims

    response = api.get(
        "/api/v1/merchant/mer_migrationsides0001/wallet",
        HTTP_AUTHORIZATION=f"Bearer {OLD_KEY}",
    )
    assert response.status_code == 200, response.content
    assert list(
        claims.due(timezone.now(), livemode=True).values_list("public_id", flat=True)
    ) == ["inst_migrationsides0001"]
    assert not claims.due(timezone.now(), livemode=False).exists()
