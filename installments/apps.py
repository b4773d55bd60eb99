from django.apps import AppConfig


class InstallmentsConfig(AppConfig):
    name = "installments"

    def ready(self):
        from django_q.models import Schedule

        from config.observability.sources import register_metrics_source
        from config.schedules import ScheduleSpec, declare
        from payments.gateway.hooks import register_charge_confirmation_handler
        from payments.ledger.hooks import register_ledger_check
        from payments.methods.hooks import register_revocation_handler

        from . import confirmations, ledger_checks, metrics, scores

        # The auto-debit engine; catch_up is off for the whole cluster
        # (Q_CLUSTER), so a cluster that was down runs one pass, not a backlog.
        declare(
            ScheduleSpec(
                name="installments-collect-due",
                func="installments.tasks.collect_due_installments",
                schedule_type=Schedule.MINUTES,
                minutes=5,
            )
        )
        _declare_notification_schedules()
        register_revocation_handler(scores.on_payment_method_revoked)
        register_charge_confirmation_handler(confirmations.installment_charge_confirm)
        register_ledger_check(
            ledger_checks.paid_installments_have_one_collection,
            name="each paid installment has exactly one collection",
        )
        register_ledger_check(
            ledger_checks.collections_have_a_payment,
            name="no collection without a paid installment or deposit",
        )
        register_metrics_source("installments", metrics.metric_families)


def _declare_notification_schedules() -> None:
    """Reminders once a day at 09:00 Lagos; receipts by a sweep over recent
    collections every 2 minutes (installments/notifications/)."""
    from datetime import time

    from django_q.models import Schedule

    from config.schedules import ScheduleSpec, declare

    declare(
        ScheduleSpec(
            name="installments-send-reminders",
            func="installments.notifications.tasks.send_reminders",
            schedule_type=Schedule.DAILY,
            at=time(9, 0),
        )
    )
    declare(
        ScheduleSpec(
            name="installments-send-collection-receipts",
            func="installments.notifications.tasks.send_collection_receipts",
            schedule_type=Schedule.MINUTES,
            minutes=2,
        )
    )
