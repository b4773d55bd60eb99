"""Dashboard pages of `payments`, mounted under /dashboard/ by config/urls.py."""

from django.urls import path

from . import views

app_name = "payments_dashboard"

urlpatterns = [
    path("wallet/", views.WalletView.as_view(), name="wallet"),
    path(
        "wallet/payout-account/",
        views.PayoutAccountView.as_view(),
        name="payout-account",
    ),
]
