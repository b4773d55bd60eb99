from django.apps import AppConfig


class CheckoutConfig(AppConfig):
    name = "checkout"
    verbose_name = "Checkout"

    def ready(self):
        from django_q.models import Schedule

        from config.schedules import ScheduleSpec, declare

        declare(
            ScheduleSpec(
                name="purge-expired-idempotency-records",
                func="checkout.tasks.purge_expired_idempotency_records",
                schedule_type=Schedule.HOURLY,
            )
        )
        declare(
            ScheduleSpec(
                name="settle-deposit-attempts",
                func="checkout.tasks.settle_deposit_attempts",
                schedule_type=Schedule.MINUTES,
                minutes=5,
            )
        )
