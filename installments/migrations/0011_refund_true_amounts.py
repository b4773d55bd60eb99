"""A refund says what it really did: `amount_requested` (what was asked),
`amount_failed` (its failed parts' money, refundable again), and `amount` and
`amount_returned` without the failed parts (docs/refunds.md)."""

from django.db import migrations, models
from django.db.models import F, Q, Sum


def true_amounts(apps, schema_editor):
    Refund = apps.get_model("installments", "Refund")
    RefundPart = apps.get_model("installments", "RefundPart")
    failed = dict(
        RefundPart.objects.filter(status="failed")
        .order_by()
        .values("refund_id")
        .annotate(total=Sum("amount"))
        .values_list("refund_id", "total")
    )
    Refund.objects.update(amount_requested=F("amount"))
    for pk, total in failed.items():
        Refund.objects.filter(pk=pk).update(
            amount=F("amount") - total,
            amount_returned=F("amount_returned") - total,
            amount_failed=total,
        )


def requested_amounts(apps, schema_editor):
    """Back to the old meaning: the failed parts counted in `amount`."""
    Refund = apps.get_model("installments", "Refund")
    Refund.objects.filter(amount_failed__gt=0).update(
        amount=F("amount") + F("amount_failed"),
        amount_returned=F("amount_returned") + F("amount_failed"),
        amount_failed=0,
    )


class Migration(migrations.Migration):
    dependencies = [
        ("installments", "0010_reschedules"),
    ]

    operations = [
        migrations.RemoveConstraint(model_name="refund", name="refund_amounts_valid"),
        migrations.AddField(
            model_name="refund",
            name="amount_requested",
            field=models.BigIntegerField(default=0),
            preserve_default=False,
        ),
        migrations.AddField(
            model_name="refund",
            name="amount_failed",
            field=models.BigIntegerField(default=0),
        ),
        migrations.RunPython(true_amounts, requested_amounts),
        migrations.AddConstraint(
            model_name="refund",
            constraint=models.CheckConstraint(
                condition=Q(amount_requested__gt=0)
                & Q(amount__gte=0)
                & Q(amount_reduced__gte=0)
                & Q(amount_returned__gte=0)
                & Q(amount_failed__gte=0)
                & Q(amount=F("amount_reduced") + F("amount_returned"))
                & Q(amount_requested=F("amount") + F("amount_failed")),
                name="refund_amounts_true",
            ),
        ),
    ]
