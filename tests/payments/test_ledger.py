"""The ledger core: the fee rule, balanced append-only postings (DESIGN section 8)."""

import pytest
from django.db import IntegrityError, transaction
from hypothesis import given
from hypothesis import strategies as st

from payments.ledger import selectors
from payments.ledger import services as ledger
from payments.ledger.fees import merchant_net, platform_fee
from payments.ledger.models import PLATFORM_FEES, PROCESSOR_CLEARING
from payments.models import LedgerLine, LedgerTransaction

from ..factories import CustomerFactory, MerchantFactory


@pytest.mark.parametrize(
    "amount, fee",
    [
        (0, 0),
        (19, 0),
        (20, 1),
        (39, 1),
        (60, 2),
        (100_001, 2_500),
        (30_001, 750),
        (23_334, 583),
        (1_000_000_000, 25_000_000),
    ],
)
def test_fee_is_two_and_a_half_percent_rounded_half_up(amount, fee):
    assert platform_fee(amount) == fee


@given(st.integers(min_value=0, max_value=10**12))
def test_fee_plus_net_is_the_amount(amount):
    assert platform_fee(amount) + merchant_net(amount) == amount
    assert -500 < platform_fee(amount) * 1000 - amount * 25 <= 500


@pytest.mark.parametrize("bad", [-1, 1.5, "100", True])
def test_fee_refuses_anything_but_kobo(bad):
    with pytest.raises(ValueError):
        platform_fee(bad)


@pytest.mark.django_db
def test_collection_credits_the_wallet_with_97_5_percent():
    merchant, customer = MerchantFactory(), CustomerFactory()

    txn = ledger.collection_post(
        merchant=merchant,
        customer=customer,
        amount=30_001,
        reference="plan_x_d1",
        processor_reference="plan_x_d1",
        resource_type="payment_plan",
        resource_id="plan_x",
    )

    assert (txn.amount, txn.fee, txn.net) == (30_001, 750, 29_251)
    assert sum(line.amount for line in txn.lines.all()) == 0
    assert selectors.wallet_available_balance(merchant) == 29_251
    assert -selectors.account_balance(PLATFORM_FEES) == 750
    assert selectors.account_balance(PROCESSOR_CLEARING) == 30_001


@pytest.mark.django_db
def test_the_same_movement_cannot_be_posted_twice():
    merchant, customer = MerchantFactory(), CustomerFactory()

    def post(processor_reference):
        return ledger.collection_post(
            merchant=merchant,
            customer=customer,
            amount=50_000,
            reference="inst_1",
            processor_reference=processor_reference,
            resource_type="installment",
            resource_id="inst_1",
        )

    post("inst_1_a1")
    with pytest.raises(IntegrityError), transaction.atomic():
        post("inst_1_a2")
    assert selectors.wallet_available_balance(merchant) == merchant_net(50_000)


@pytest.mark.django_db
def test_unbalanced_postings_are_refused():
    with pytest.raises(ValueError, match="balance"):
        ledger.ledger_post(
            kind="collection",
            reference="x",
            amount=100,
            lines=[(PROCESSOR_CLEARING, 100), (PLATFORM_FEES, -99)],
        )
    assert not LedgerTransaction.objects.exists()


@pytest.mark.django_db
def test_ledger_rows_are_append_only():
    customer = CustomerFactory()
    txn = ledger.verification_charge_post(
        customer=customer, amount=5000, reference="r1"
    )
    line = txn.lines.first()

    line.amount = 1
    with pytest.raises(ValueError, match="append-only"):
        line.save()
    with pytest.raises(ValueError, match="append-only"):
        txn.delete()
    assert LedgerLine.objects.get(pk=line.pk).amount != 1


@pytest.mark.django_db
def test_verification_charge_and_refund_net_to_zero():
    customer = CustomerFactory()
    ledger.verification_charge_post(customer=customer, amount=5000, reference="r2")
    ledger.verification_refund_post(customer=customer, amount=5000, reference="r2")

    assert selectors.account_balance(PROCESSOR_CLEARING) == 0
    assert LedgerTransaction.objects.count() == 2
