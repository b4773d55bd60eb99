from config.api.urls import api_path

from . import api
from .audit import api as audit_api

urlpatterns = [
    *api_path(
        "auth/merchant/register",
        api.MerchantRegisterApi.as_view(),
        "merchant-register",
    ),
    *api_path("auth/merchant/login", api.MerchantLoginApi.as_view(), "merchant-login"),
    *api_path(
        "auth/merchant/login/mfa",
        api.MerchantLoginMfaApi.as_view(),
        "merchant-login-mfa",
    ),
    *api_path(
        "merchant/<str:merchant_id>/rotate-api-key",
        api.ApiKeyRotateApi.as_view(),
        "merchant-rotate-api-key",
    ),
    *api_path(
        "merchant/<str:merchant_id>/api-key/history",
        api.ApiKeyHistoryApi.as_view(),
        "merchant-api-key-history",
    ),
    *api_path(
        "merchant/<str:merchant_id>/settings",
        api.MerchantSettingsApi.as_view(),
        "merchant-settings",
    ),
    *api_path("audit-log", audit_api.AuditLogApi.as_view(), "audit-log"),
]
