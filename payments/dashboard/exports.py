"""CSV downloads of the wallet page's lists (DESIGN section 16): the wallet's
transactions, refunds, payouts, and one payout's settlement report. Streamed
(config.exports) and scoped to the signed-in merchant: another merchant's payout
id is a 404."""

from django.http import Http404
from django.views import View

from config.exports import csv_response
from merchants.dashboard.auth import MerchantLoginRequiredMixin

from ..ledger import selectors as ledger_selectors
from ..ledger.exports import REFUNDS, WALLET_TRANSACTIONS
from ..ledger.serializers import wallet_transaction_output
from ..payouts import selectors as payout_selectors
from ..payouts.exports import PAYOUTS, SETTLEMENT
from ..payouts.serializers import payout_output, settlement_line_output
from . import selectors


class WalletTransactionsCsv(MerchantLoginRequiredMixin, View):
    def get(self, request):
        merchant = request.merchant
        return csv_response(
            WALLET_TRANSACTIONS,
            ledger_selectors.wallet_transactions(merchant),
            merchant_id=merchant.public_id,
            output=wallet_transaction_output,
        )


class RefundsCsv(MerchantLoginRequiredMixin, View):
    def get(self, request):
        merchant = request.merchant
        return csv_response(
            REFUNDS,
            selectors.refund_movements(merchant),
            merchant_id=merchant.public_id,
        )


class PayoutsCsv(MerchantLoginRequiredMixin, View):
    def get(self, request):
        merchant = request.merchant
        return csv_response(
            PAYOUTS,
            payout_selectors.payouts_of(merchant),
            merchant_id=merchant.public_id,
            output=payout_output,
        )


class PayoutSettlementCsv(MerchantLoginRequiredMixin, View):
    def get(self, request, payout_id):
        merchant = request.merchant
        payout = payout_selectors.payout_of(merchant, payout_id)
        if payout is None:
            raise Http404("No payout of yours has this id.")
        return csv_response(
            SETTLEMENT,
            payout_selectors.settlement_report(payout),
            merchant_id=merchant.public_id,
            output=settlement_line_output,
            name=f"settlement_{payout.public_id}",
        )
