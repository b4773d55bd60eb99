import django.db.models.deletion
from django.db import migrations, models

PAYOUT = "payout"
PAYOUT_RETURNED = "payout_returned"


def cover_past_payouts(apps, schema_editor):
    """Payouts made before their lines were recorded: replay each wallet's lines
    in order. A payout's own line covers every line not yet paid out before it;
    its returned line (failed or reversed) gives them back to the next one."""
    LedgerLine = apps.get_model("payments", "LedgerLine")
    Payout = apps.get_model("payments", "Payout")
    PayoutItem = apps.get_model("payments", "PayoutItem")
    payouts = dict(Payout.objects.values_list("public_id", "pk"))
    if not payouts:
        return
    pools, covered, items = {}, {}, []
    lines = (
        LedgerLine.objects.filter(account__startswith="merchant_wallet:")
        .order_by("pk")
        .values_list("pk", "account", "transaction__kind", "transaction__reference")
    )
    for pk, account, kind, reference in lines.iterator(chunk_size=2000):
        pool = pools.setdefault(account, [])
        if kind == PAYOUT and reference in payouts:
            covered[reference] = pool[:]
            items += [(payouts[reference], line) for line in pool]
            pool.clear()
        elif kind == PAYOUT_RETURNED:
            pool.extend(covered.pop(reference, []))
        else:
            pool.append(pk)
    PayoutItem.objects.bulk_create(
        (PayoutItem(payout_id=payout, line_id=line) for payout, line in items),
        batch_size=2000,
    )


class Migration(migrations.Migration):
    dependencies = [
        ("payments", "0017_sandbox_card_fails_twice"),
    ]

    operations = [
        migrations.CreateModel(
            name="PayoutItem",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True,
                        primary_key=True,
                        serialize=False,
                        verbose_name="ID",
                    ),
                ),
                (
                    "line",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="payout_items",
                        to="payments.ledgerline",
                    ),
                ),
                (
                    "payout",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="items",
                        to="payments.payout",
                    ),
                ),
            ],
            options={
                "constraints": [
                    models.UniqueConstraint(
                        fields=("payout", "line"), name="payout_item_one_per_line"
                    )
                ],
            },
        ),
        migrations.RunPython(cover_past_payouts, migrations.RunPython.noop),
    ]
