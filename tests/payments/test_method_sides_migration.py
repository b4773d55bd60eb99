"""The migration that gives payment methods a side (payments 0025): run
backwards to the schema before it, a customer's method, card set-up and bank
mandate made there, then forwards again. Every existing row is live."""

import pytest

from ..migrating import latest, migrate

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("payments", "0024_disputes")]
AFTER = [("payments", "0025_payment_method_sides")]


def test_existing_methods_set_ups_and_mandates_are_live():
    old = migrate(BEFORE)
    try:
        Customer = old.get_model("payments", "Customer")
        customer = Customer.objects.create(
            public_id="cus_migrationcheck0001",
            email="old@mail.example.com",
            first_name="Old",
            last_name="Customer",
        )
        old.get_model("payments", "PaymentMethod").objects.create(
            public_id="pm_migrationcheck0001",
            customer=customer,
            type="card",
            label="Visa •••• 4081",
            processor="sandbox",
            authorization_code="AUTH_old",
            authorization_code_hash="x",
            fingerprint="y",
            is_default=True,
        )
        old.get_model("payments", "CardSetup").objects.create(
            reference="card-old",
            customer=customer,
            processor="sandbox",
            amount=5000,
            callback_url="https://shop.example.com/done",
        )
        old.get_model("payments", "BankMandate").objects.create(
            reference="mandate-old",
            customer=customer,
            processor="sandbox",
            bank_code="044",
            bank_name="Access Bank",
            account_number="0123456789",
            amount=5000,
        )

        new = migrate(AFTER)

        for model in ("PaymentMethod", "CardSetup", "BankMandate"):
            row = new.get_model("payments", model).objects.get()
            assert row.livemode is True, model
    finally:
        latest()
