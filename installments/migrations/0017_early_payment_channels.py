"""Early payments by bank transfer and USSD (DESIGN section 17): a public id
(`pay_...`), the channel (the existing rows' from their method's type), the
expiry and instructions of an offline payment, and no method for one."""

import django.db.models.deletion
from django.db import migrations, models

import installments.early.models

CHANNELS = [
    ("card", "card"),
    ("bank_account", "bank_account"),
    ("bank_transfer", "bank_transfer"),
    ("ussd", "ussd"),
]


def backfill(apps, schema_editor):
    """Each existing payment gets its own id, and the channel of its method."""
    EarlyPayment = apps.get_model("installments", "EarlyPayment")
    rows = list(
        EarlyPayment.objects.filter(public_id__isnull=True).select_related(
            "payment_method"
        )
    )
    for row in rows:
        row.public_id = installments.early.models.new_early_payment_id()
        row.channel = "bank_account" if row.payment_method.type == "bank" else "card"
    EarlyPayment.objects.bulk_update(rows, ["public_id", "channel"], batch_size=1000)


class Migration(migrations.Migration):
    dependencies = [
        ("installments", "0016_pay_links"),
        ("payments", "0019_ledger_balances"),
    ]

    operations = [
        migrations.AddField(
            model_name="earlypayment",
            name="public_id",
            field=models.CharField(max_length=40, null=True),
        ),
        migrations.AddField(
            model_name="earlypayment",
            name="channel",
            field=models.CharField(choices=CHANNELS, default="card", max_length=16),
        ),
        migrations.AddField(
            model_name="earlypayment",
            name="expires_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="earlypayment",
            name="instructions",
            field=models.JSONField(blank=True, default=dict),
        ),
        migrations.RunPython(backfill, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="earlypayment",
            name="public_id",
            field=models.CharField(
                default=installments.early.models.new_early_payment_id,
                max_length=40,
                unique=True,
            ),
        ),
        migrations.AlterField(
            model_name="earlypayment",
            name="channel",
            field=models.CharField(choices=CHANNELS, max_length=16),
        ),
        migrations.AlterField(
            model_name="earlypayment",
            name="payment_method",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to="payments.paymentmethod",
            ),
        ),
        migrations.AddConstraint(
            model_name="earlypayment",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    models.Q(
                        ("channel__in", ("bank_transfer", "ussd")),
                        ("expires_at__isnull", False),
                        ("payment_method__isnull", True),
                    ),
                    models.Q(
                        ("channel__in", ("card", "bank_account")),
                        ("expires_at__isnull", True),
                        ("payment_method__isnull", False),
                    ),
                    _connector="OR",
                ),
                name="early_payment_channel_fits",
            ),
        ),
    ]
