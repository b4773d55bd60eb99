from django.apps import AppConfig


class PaymentsConfig(AppConfig):
    name = "payments"
    verbose_name = "Payments"

    def ready(self):
        from config.api.auth import ROLE_CUSTOMER, register_principal

        from . import selectors

        register_principal(ROLE_CUSTOMER, selectors.customer_by_public_id)
