from config.api.urls import api_path

from . import api

urlpatterns = [
    *api_path("checkout/sessions", api.SessionCreateApi.as_view(), "checkout-sessions"),
    *api_path(
        "checkout/sessions/<str:token>",
        api.SessionPublicApi.as_view(),
        "checkout-session",
    ),
    *api_path("checkout/preview", api.PreviewApi.as_view(), "checkout-preview"),
]
