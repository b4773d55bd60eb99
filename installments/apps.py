from django.apps import AppConfig


class InstallmentsConfig(AppConfig):
    name = "installments"

    def ready(self):
        _declare_schedules()
        _declare_notice_schedules()
        _declare_early_payment_schedules()
        _declare_retention_schedules()
        _declare_dispute_schedules()
        _register_handlers()
        _register_dispute_handlers()
        _register_sandbox_payments()


def _declare_engine_schedules() -> None:
    """The auto-debit engine; catch_up is off for the whole cluster
    (Q_CLUSTER), so a cluster that was down runs one pass, not a backlog. One
    schedule per side (DESIGN section 21): the two run apart, so that neither
    side's backlog delays the other's collection."""
    from django_q.models import Schedule

    from config.schedules import ScheduleSpec, declare

    for name, args in (
        ("installments-collect-due", ""),
        ("installments-collect-due-test", "('test',)"),
    ):
        declare(
            ScheduleSpec(
                name=name,
                func="installments.tasks.collect_due_installments",
                schedule_type=Schedule.MINUTES,
                minutes=5,
                args=args,
            )
        )


def _declare_schedules() -> None:
    from datetime import time

    from django_q.models import Schedule

    from config.schedules import ScheduleSpec, declare

    _declare_engine_schedules()
    # Reminders once a day at 09:00 Lagos; receipts by a sweep over recent
    # collections every 2 minutes (installments/notifications/).
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
    # Plan refunds: parts whose request got no answer are asked again, and
    # pending ones looked up (the processor's events settle most first).
    declare(
        ScheduleSpec(
            name="installments-refunds-poll",
            func="installments.tasks.refund_parts_poll",
            schedule_type=Schedule.MINUTES,
            minutes=5,
        )
    )
    declare(
        ScheduleSpec(
            name="installments-purge-refund-idempotency-records",
            func="installments.tasks.purge_expired_refund_idempotency_records",
            schedule_type=Schedule.HOURLY,
        )
    )


def _declare_notice_schedules() -> None:
    from django_q.models import Schedule

    from config.schedules import ScheduleSpec, declare

    # The messages sweep: sends the reminders and receipts no sender holds
    # (recorded and not sent yet, or whose sender died: docs/operations.md).
    declare(
        ScheduleSpec(
            name="installments-send-due-messages",
            func="installments.notifications.tasks.send_due_messages",
            schedule_type=Schedule.MINUTES,
            minutes=1,
        )
    )
    # Requests to add a payment method after a hard decline (DESIGN 15): sent
    # after the engine's commit; this sweep sends those whose task never ran.
    declare(
        ScheduleSpec(
            name="installments-send-action-required-notices",
            func="installments.notifications.tasks.send_action_required_notices",
            schedule_type=Schedule.MINUTES,
            minutes=5,
        )
    )


def _declare_early_payment_schedules() -> None:
    from django_q.models import Schedule

    from config.schedules import ScheduleSpec, declare

    # Bank transfer and USSD payments the customer did not complete in their
    # 30 minutes: the installments they held go back (installments/early/).
    declare(
        ScheduleSpec(
            name="installments-expire-offline-payments",
            func="installments.tasks.expire_offline_payments",
            schedule_type=Schedule.MINUTES,
            minutes=1,
        )
    )


def _declare_retention_schedules() -> None:
    from datetime import time

    from django_q.models import Schedule

    from config.schedules import ScheduleSpec, declare

    # Records past the financial-records period (DESIGN 18, installments/
    # retention/), at 03:30 Lagos, away from the reminders and the busiest
    # collection hours.
    declare(
        ScheduleSpec(
            name="installments-purge-records",
            func="installments.tasks.purge_records",
            schedule_type=Schedule.DAILY,
            at=time(3, 30),
        )
    )


def _declare_dispute_schedules() -> None:
    from django_q.models import Schedule

    from config.schedules import ScheduleSpec, declare

    # Disputes left unanswered past their deadline are lost (DESIGN 19,
    # installments/disputes/), as the processor resolves them.
    declare(
        ScheduleSpec(
            name="installments-disputes-lapse",
            func="installments.tasks.disputes_lapse",
            schedule_type=Schedule.MINUTES,
            minutes=15,
        )
    )


def _register_sandbox_payments() -> None:
    """The pending payments the sandbox's complete and expire endpoints reach,
    by their ids' prefix (installments/early/sandbox.py)."""
    from .early import sandbox as early_sandbox

    early_sandbox.register_sandbox_payments("pay", early_sandbox.EARLY_PAYMENTS)


def _register_dispute_handlers() -> None:
    """The processor's dispute events (DESIGN section 19), handled by
    installments/disputes/ through endpoint 24's pipeline, and the ledger
    checks of disputes."""
    from payments.gateway.hooks import register_event_handler
    from payments.ledger.hooks import register_ledger_check

    from .disputes import inbound, ledger_checks

    register_event_handler(inbound.DISPUTE_EVENTS, inbound.dispute_event_handle)
    for check in ledger_checks.CHECKS:
        register_ledger_check(check.check, name=check.name)


def _register_handlers() -> None:
    """What installments does when something happens below it (the registries
    of payments: revocations, refunds, charge confirmations, ledger checks) and
    the figures it gives /metrics."""
    from config.observability.sources import register_metrics_source
    from payments.gateway.hooks import (
        register_charge_confirmation_handler,
        register_refund_handler,
    )
    from payments.ledger.hooks import register_ledger_check
    from payments.methods.hooks import register_revocation_handler
    from payments.payouts.orders import register_order_lookup

    from . import ledger_checks, metrics, orders
    from .collection import confirmations
    from .early import confirmations as early_confirmations
    from .plans import hooks, scores
    from .refunds import ledger_checks as refund_checks
    from .refunds import selectors as refund_selectors
    from .refunds import serializers as refund_serializers
    from .refunds import settlement
    from .reschedules import serializers as reschedule_serializers

    register_revocation_handler(scores.on_payment_method_revoked)
    register_refund_handler(settlement.outcome_apply)
    register_charge_confirmation_handler(confirmations.installment_charge_confirm)
    register_charge_confirmation_handler(
        early_confirmations.early_payment_charge_confirm
    )
    register_charge_confirmation_handler(confirmations.partial_debit_charge_confirm)
    register_ledger_check(
        ledger_checks.paid_installments_have_one_collection,
        name="each paid installment has exactly one collection",
    )
    register_ledger_check(
        ledger_checks.collections_have_a_payment,
        name="no collection without a paid installment or deposit",
    )
    for check in refund_checks.CHECKS:
        register_ledger_check(check.check, name=check.name)
    register_ledger_check(
        ledger_checks.payoffs_cover_their_installments,
        name="each successful payoff paid the installments it covers",
    )
    register_metrics_source("installments", metrics.metric_families)
    register_metrics_source("installments_messages", metrics.message_families)
    register_order_lookup(orders.orders_of_resources)
    # The core's plan figures and representation, from the features above it.
    hooks.register_refund_pending_reader(refund_selectors.amount_refund_pending)
    hooks.register_plan_output_part(
        refund_serializers.plan_refunds_part,
        prefetch=refund_serializers.plan_refunds_prefetch,
    )
    hooks.register_plan_output_part(
        reschedule_serializers.plan_reschedules_part,
        prefetch=reschedule_serializers.plan_reschedules_prefetch,
    )
