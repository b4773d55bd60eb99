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
    # CSV downloads of the wallet page's lists.
    path(
        "wallet/transactions.csv",
        views.WalletTransactionsCsv.as_view(),
        name="transactions-csv",
    ),
    path("wallet/refunds.csv", views.RefundsCsv.as_view(), name="refunds-csv"),
    path("wallet/payouts.csv", views.PayoutsCsv.as_view(), name="payouts-csv"),
    path(
        "wallet/payouts/<str:payout_id>/settlement.csv",
        views.PayoutSettlementCsv.as_view(),
        name="settlement-csv",
    ),
]
