from config.api.urls import api_path

from . import api

urlpatterns = [
    *api_path("checkout/sessions", api.SessionCreateApi.as_view(), "checkout-sessions"),
    *api_path(
        "checkout/sessions/<str:token>",
        api.SessionPublicApi.as_view(),
        "checkout-session",
    ),
    *api_path(
        "checkout/sessions/<str:token>/complete",
        api.SessionCompleteApi.as_view(),
        "checkout-session-complete",
    ),
    *api_path(
        "checkout/sessions/<str:token>/key-facts",
        api.SessionKeyFactsApi.as_view(),
        "checkout-session-key-facts",
    ),
    *api_path("checkout/preview", api.PreviewApi.as_view(), "checkout-preview"),
    *api_path("payment-links", api.PaymentLinkCreateApi.as_view(), "payment-links"),
    *api_path(
        "payment-links/merchant/<str:merchant_id>",
        api.PaymentLinkListApi.as_view(),
        "payment-link-list",
    ),
    *api_path(
        "payment-links/<str:link_id>/toggle",
        api.PaymentLinkToggleApi.as_view(),
        "payment-link-toggle",
    ),
]
