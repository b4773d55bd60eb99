"""Wallet lines name the processor reference of the charge that collected them
and the resource they belong to (docs/wallet.md): fill them in on the collections
posted before the ledger recorded them. Payouts are backfilled by payments."""

from django.db import migrations
from django.db.models import Exists, F, OuterRef, Subquery, Value


def backfill_collections(apps, schema_editor):
    LedgerTransaction = apps.get_model("payments", "LedgerTransaction")
    Installment = apps.get_model("installments", "Installment")
    DepositAttempt = apps.get_model("installments", "DepositAttempt")
    collections = LedgerTransaction.objects.filter(kind="collection", resource_id="")
    # An installment's collection is posted under the installment's id; the
    # reference of the charge that paid it is on the installment.
    installment = Installment.objects.filter(public_id=OuterRef("reference"))
    collections.filter(Exists(installment)).update(
        processor_reference=Subquery(installment.values("processor_reference")[:1]),
        resource_type=Value("installment"),
        resource_id=F("reference"),
    )
    # A deposit's collection is posted under its attempt's charge reference.
    attempt = DepositAttempt.objects.filter(reference=OuterRef("reference"))
    collections.filter(Exists(attempt)).update(
        processor_reference=F("reference"),
        resource_type=Value("payment_plan"),
        resource_id=Subquery(attempt.values("plan__public_id")[:1]),
    )


class Migration(migrations.Migration):

    dependencies = [
        ("installments", "0002_collection_engine"),
        ("payments", "0010_ledger_transaction_processor_reference_and_resource"),
    ]

    operations = [
        migrations.RunPython(backfill_collections, migrations.RunPython.noop),
    ]
