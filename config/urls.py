"""Root URLs: the only module that imports every app (DESIGN section 1)."""

from django.contrib import admin
from django.urls import include, path

from config.api.urls import api_path
from config.api.views import TokenRefreshApi

api_v1 = [
    *api_path("auth/token/refresh", TokenRefreshApi.as_view(), "token-refresh"),
    path("", include("merchants.urls")),
    path("", include("webhooks.urls")),
    path("", include("payments.urls")),
    path("", include("installments.urls")),
    path("", include("checkout.urls")),
]

urlpatterns = [
    path("api/v1/", include(api_v1)),
    path("admin/", admin.site.urls),
    path("", include("payments.page_urls")),
]
