from django.apps import AppConfig


class MerchantsConfig(AppConfig):
    name = "merchants"
    verbose_name = "Merchants"

    def ready(self):
        from config.api.auth import ROLE_MERCHANT, register_principal

        from .team import selectors

        # Merchant JWTs name a member; the API's views act for its merchant.
        register_principal(ROLE_MERCHANT, selectors.token_principal)
