from django.apps import AppConfig


class PaymentsConfig(AppConfig):
    """One Django app (`payments`) of five domains, each a subpackage:
    customers, ledger, gateway, methods, payouts (docs/architecture.md)."""

    name = "payments"
    verbose_name = "Payments"

    def ready(self):
        from config.api.auth import ROLE_CUSTOMER, register_principal
        from config.observability.sources import register_metrics_source

        from . import metrics
        from .customers import selectors as customer_selectors
        from .gateway.hooks import (
            register_event_handler,
            register_inbound_handler,
            register_refund_handler,
        )
        from .gateway.models import InboundRequest
        from .gateway.services import (
            REFUND_EVENTS,
            refund_event_handle,
            verification_refund_settle,
        )
        from .methods.services import revocation_event_handle
        from .payouts.services import TRANSFER_EVENTS, transfer_event_handle

        register_principal(ROLE_CUSTOMER, customer_selectors.customer_by_public_id)
        # The gateway sits below methods and payouts: what the processor says
        # about their records reaches them through the gateway's registries.
        register_inbound_handler(
            InboundRequest.Endpoint.PAYMENT_GATEWAY, revocation_event_handle
        )
        register_event_handler(TRANSFER_EVENTS, transfer_event_handle)
        # The gateway's own refund events, and its verification-charge refunds
        # among the refund handlers (installments registers the plans' refunds).
        register_event_handler(REFUND_EVENTS, refund_event_handle)
        register_refund_handler(verification_refund_settle)
        register_metrics_source("payments", metrics.metric_families)
        _declare_schedules()
        _declare_sandbox_schedules()
        _declare_customer_schedules()


def _declare_schedules() -> None:
    from django_q.models import Schedule

    from config.schedules import ScheduleSpec, declare

    declare(
        ScheduleSpec(
            name="payments-poll-revoked-mandates",
            func="payments.methods.tasks.poll_revoked_mandates",
            schedule_type=Schedule.DAILY,
        )
    )
    # Kept balances (payments/ledger/balances.py): a balance read adds the
    # lines since the last run, so this bounds what any read adds up.
    declare(
        ScheduleSpec(
            name="payments-ledger-checkpoint",
            func="payments.ledger.tasks.checkpoint_balances",
            schedule_type=Schedule.MINUTES,
            minutes=5,
        )
    )
    declare(
        ScheduleSpec(
            name="payments-run-payouts",
            func="payments.payouts.tasks.run_payouts",
            schedule_type=Schedule.DAILY,
        )
    )
    declare(
        ScheduleSpec(
            name="payments-retry-paystack-events",
            func="payments.gateway.tasks.retry_paystack_events",
            schedule_type=Schedule.MINUTES,
            minutes=10,
        )
    )
    declare(
        ScheduleSpec(
            name="payments-purge-inbound-requests",
            func="payments.gateway.tasks.purge_inbound_requests",
            schedule_type=Schedule.DAILY,
        )
    )
    declare(
        ScheduleSpec(
            name="payments-refund-verification-charges",
            func="payments.gateway.tasks.refund_verification_charges",
            schedule_type=Schedule.MINUTES,
            minutes=15,
        )
    )


def _declare_sandbox_schedules() -> None:
    """The sandbox processor's own passes, as Paystack would act on its side:
    pending refunds settled, disputed charges disputed (each does nothing on
    another processor)."""
    from django_q.models import Schedule

    from config.schedules import ScheduleSpec, declare

    declare(
        ScheduleSpec(
            name="payments-sandbox-refunds-settle",
            func="payments.gateway.tasks.sandbox_refunds_settle",
            schedule_type=Schedule.MINUTES,
            minutes=1,
        )
    )
    declare(
        ScheduleSpec(
            name="payments-sandbox-disputes",
            func="payments.gateway.tasks.sandbox_disputes_run",
            schedule_type=Schedule.MINUTES,
            minutes=1,
        )
    )


def _declare_customer_schedules() -> None:
    from django_q.models import Schedule

    from config.schedules import ScheduleSpec, declare

    # Sign-in records are kept a year (payments.customers.privacy).
    declare(
        ScheduleSpec(
            name="payments-purge-sign-ins",
            func="payments.customers.tasks.purge_sign_ins",
            schedule_type=Schedule.DAILY,
        )
    )
