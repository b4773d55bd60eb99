"""Post the verification charges (and processed refunds) recorded before the
ledger recorded them, so that check_ledger holds on databases that predate it."""

from django.db import migrations

from config.api.ids import new_public_id

VERIFICATION_PURPOSES = ("card_verification", "bank_verification")


def backfill(apps, schema_editor):
    ProcessorCharge = apps.get_model("payments", "ProcessorCharge")
    LedgerTransaction = apps.get_model("payments", "LedgerTransaction")
    LedgerLine = apps.get_model("payments", "LedgerLine")

    def post(kind, charge, amount, description, lines):
        if LedgerTransaction.objects.filter(
            kind=kind, reference=charge.reference
        ).exists():
            return
        txn = LedgerTransaction.objects.create(
            public_id=new_public_id("txn"),
            kind=kind,
            reference=charge.reference,
            customer_id=charge.customer_id,
            currency=charge.currency,
            amount=amount,
            description=description,
        )
        LedgerLine.objects.bulk_create(
            LedgerLine(transaction=txn, account=account, amount=value)
            for account, value in lines
        )

    charges = ProcessorCharge.objects.filter(
        status="success", purpose__in=VERIFICATION_PURPOSES
    ).select_related("refund")
    for charge in charges.iterator():
        post(
            "verification_charge",
            charge,
            charge.amount,
            "Verification charge",
            [
                ("processor_clearing", charge.amount),
                ("customer_refunds", -charge.amount),
            ],
        )
        refund = getattr(charge, "refund", None)
        if refund is not None and refund.status == "processed":
            post(
                "verification_refund",
                charge,
                refund.amount,
                "Verification charge refunded",
                [
                    ("customer_refunds", refund.amount),
                    ("processor_clearing", -refund.amount),
                ],
            )


class Migration(migrations.Migration):
    dependencies = [("payments", "0004_payouts")]

    operations = [migrations.RunPython(backfill, migrations.RunPython.noop)]
