"""Root URLs: the only module that imports every app (DESIGN section 1)."""

from django.contrib import admin
from django.urls import include, path
from django.views.generic import RedirectView

from config.api.urls import api_path
from config.api.views import ApiSchemaView, TokenRefreshApi
from config.observability import health, metrics
from config.web.api_docs import ApiDocsView, ApiRedocView, redoc_bundle

api_v1 = [
    *api_path("auth/token/refresh", TokenRefreshApi.as_view(), "token-refresh"),
    path("", include("merchants.urls")),
    path("", include("webhooks.urls")),
    path("", include("payments.urls")),
    path("", include("installments.urls")),
    path("", include("checkout.urls")),
]

urlpatterns = [
    # Operations; answered by config.observability.middleware.OpsEndpointsMiddleware.
    *api_path("healthz", health.healthz, "healthz"),
    *api_path("readyz", health.readyz, "readyz"),
    *api_path("metrics", metrics.metrics, "metrics"),
    path("api/v1/schema/", ApiSchemaView.as_view(), name="api-schema"),
    path("api/v1/schema", ApiSchemaView.as_view()),
    path("api/v1/", include(api_v1)),
    path("api/docs/", ApiDocsView.as_view(url_name="api-schema"), name="api-docs"),
    path("api/redoc/", ApiRedocView.as_view(url_name="api-schema"), name="api-redoc"),
    path("api/redoc/redoc.standalone.js", redoc_bundle, name="api-redoc-bundle"),
    path("admin/", admin.site.urls),
    # The landing page at /, the merchant guides under /docs/, /favicon.ico.
    path("", include("merchants.page_urls")),
    path("", include("payments.page_urls")),
    # Customer-facing pages: the hosted checkout, payment links, widget.js, and
    # the customer's own account.
    path("", include("checkout.page_urls")),
    # The pay page of a pay link (no sign-in).
    path("", include("installments.page_urls")),
    path("account", RedirectView.as_view(url="/account/", permanent=False)),
    path("account/", include("installments.account.urls")),
    # The merchant dashboard: one site whose pages live in the app whose data they
    # show; each app adds its own include here (DESIGN section 1).
    path("dashboard", RedirectView.as_view(url="/dashboard/", permanent=False)),
    path("dashboard/", include("merchants.dashboard.urls")),
    path("dashboard/", include("webhooks.dashboard.urls")),
    path("dashboard/", include("payments.dashboard.urls")),
    path("dashboard/", include("installments.dashboard.urls")),
    path("dashboard/", include("checkout.dashboard.urls")),
]
