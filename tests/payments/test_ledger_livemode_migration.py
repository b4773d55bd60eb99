"""The migration that gives the journal its sides (payments 0025): a
transaction written before it is live, its lines where they were (the live
accounts keep their names), and the books check clean on each side."""

from io import StringIO

import pytest
from django.core.management import call_command

from ..migrating import latest, migrate

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("payments", "0024_disputes")]
AFTER = [("payments", "0026_ledger_transaction_livemode")]


def test_existing_transactions_are_live():
    old = migrate(BEFORE)
    try:
        Customer = old.get_model("payments", "Customer")
        Transaction = old.get_model("payments", "LedgerTransaction")
        Line = old.get_model("payments", "LedgerLine")
        customer = Customer.objects.create(
            public_id="cus_migrationcheck0001",
            email="old@mail.example.com",
            password="!",
            first_name="Ada",
            last_name="Old",
        )
        txn = Transaction.objects.create(
            public_id="txn_migrationcheck0001",
            kind="verification_charge",
            reference="card_migrationcheck",
            customer=customer,
            amount=5_000,
        )
        Line.objects.create(transaction=txn, account="processor_clearing", amount=5_000)
        Line.objects.create(transaction=txn, account="customer_refunds", amount=-5_000)

        new = migrate(AFTER)

        moved = new.get_model("payments", "LedgerTransaction").objects.get(pk=txn.pk)
        assert moved.livemode is True
        accounts = set(
            new.get_model("payments", "LedgerLine")
            .objects.filter(transaction_id=txn.pk)
            .values_list("account", flat=True)
        )
        assert accounts == {"processor_clearing", "customer_refunds"}
    finally:
        latest()
    out = StringIO()
    call_command("check_ledger", "--side", "test", stdout=out)
    assert "test: clean" in out.getvalue()
