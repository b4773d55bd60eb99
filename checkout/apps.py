from django.apps import AppConfig


class CheckoutConfig(AppConfig):
    name = "checkout"
    verbose_name = "Checkout"

    def ready(self):
        from django_q.models import Schedule

        from installments.account.orders import register_order_finder

        from .selectors import session_of_checkout_path

        # The bank account pages a customer opens from the hosted checkout keep
        # the order's summary in view.
        register_order_finder(session_of_checkout_path)

        from payments.gateway.hooks import register_charge_confirmation_handler

        from .services.offline import deposit_offline_confirm

        # A deposit paid by bank transfer or USSD settles on the processor's
        # verified `charge.success`.
        register_charge_confirmation_handler(deposit_offline_confirm)

        from installments.early.sandbox import register_sandbox_payments

        from .sandbox import DEPOSITS

        # The sandbox's complete and expire endpoints reach such a deposit too.
        register_sandbox_payments("pay", DEPOSITS)

        from installments.privacy.erasure import erasure_step_register

        from .services.erasure import checkout_sessions_scrub

        # A customer's erasure blanks the address their sessions were made for.
        erasure_step_register(checkout_sessions_scrub)

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
        declare(
            ScheduleSpec(
                name="expire-offline-deposits",
                func="checkout.tasks.expire_offline_deposits",
                schedule_type=Schedule.MINUTES,
                minutes=1,
            )
        )
