"""Dashboard pages of `payments`, mounted under /dashboard/ by config/urls.py."""

from django.urls import path

from . import exports, views

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
        exports.WalletTransactionsCsv.as_view(),
        name="transactions-csv",
    ),
    path("wallet/refunds.csv", exports.RefundsCsv.as_view(), name="refunds-csv"),
    path("wallet/payouts.csv", exports.PayoutsCsv.as_view(), name="payouts-csv"),
    path(
        "wallet/payouts/<str:payout_id>/settlement.csv",
        exports.PayoutSettlementCsv.as_view(),
        name="settlement-csv",
    ),
]
