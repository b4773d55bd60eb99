from django.apps import AppConfig


class MerchantsConfig(AppConfig):
    name = "merchants"
    verbose_name = "Merchants"

    def ready(self):
        from config.api.auth import ROLE_MERCHANT, register_principal

        from . import selectors

        register_principal(ROLE_MERCHANT, selectors.merchant_by_public_id)
