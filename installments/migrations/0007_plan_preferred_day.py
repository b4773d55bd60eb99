from django.db import migrations, models


class Migration(migrations.Migration):
    """A monthly plan's preferred day of the month (DESIGN 15)."""

    dependencies = [
        ("installments", "0006_early_payments"),
    ]

    operations = [
        migrations.AddField(
            model_name="paymentplan",
            name="preferred_day",
            field=models.CharField(blank=True, default="", max_length=16),
        ),
        migrations.AddConstraint(
            model_name="paymentplan",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    (
                        "preferred_day__in",
                        ["", *(str(day) for day in range(1, 29)), "last_working_day"],
                    )
                ),
                name="payment_plan_preferred_day_valid",
            ),
        ),
    ]
