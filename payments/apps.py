from django.apps import AppConfig


class PaymentsConfig(AppConfig):
    name = "payments"
    verbose_name = "Payments"

    def ready(self):
        from django_q.models import Schedule

        from config.api.auth import ROLE_CUSTOMER, register_principal
        from config.schedules import ScheduleSpec, declare

        from . import selectors

        register_principal(ROLE_CUSTOMER, selectors.customer_by_public_id)
        declare(
            ScheduleSpec(
                name="payments-poll-revoked-mandates",
                func="payments.tasks.poll_revoked_mandates",
                schedule_type=Schedule.DAILY,
            )
        )
        declare(
            ScheduleSpec(
                name="payments-run-payouts",
                func="payments.tasks.run_payouts",
                schedule_type=Schedule.DAILY,
            )
        )
        declare(
            ScheduleSpec(
                name="payments-retry-paystack-events",
                func="payments.tasks.retry_paystack_events",
                schedule_type=Schedule.MINUTES,
                minutes=10,
            )
        )
        declare(
            ScheduleSpec(
                name="payments-purge-inbound-requests",
                func="payments.tasks.purge_inbound_requests",
                schedule_type=Schedule.DAILY,
            )
        )
        declare(
            ScheduleSpec(
                name="payments-refund-verification-charges",
                func="payments.tasks.refund_verification_charges",
                schedule_type=Schedule.MINUTES,
                minutes=15,
            )
        )
