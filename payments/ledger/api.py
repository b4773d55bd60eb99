"""HTTP in/out for the merchant's wallet (endpoint 9)."""

from config.api import responses
from config.api.csv import CsvListApi, wants_csv
from config.api.pagination import paginate
from config.api.permissions import accepts
from config.exports import csv_response
from merchants.authentication import resolve_merchant
from merchants.team.permissions import role_needs

from . import selectors
from .exports import WALLET_TRANSACTIONS
from .serializers import wallet_output, wallet_transaction_output


class WalletApi(CsvListApi):
    """9. `GET /merchant/{merchant_id}/wallet`: balances from the ledger and the
    wallet's transactions, newest first, paginated on the wallet lines' index
    (`total` counts them all, from the kept count: docs/wallet.md);
    `?format=csv` streams every transaction."""

    permission_classes = [accepts("api_key", "merchant_jwt"), role_needs("wallet")]

    def get(self, request, merchant_id):
        merchant = resolve_merchant(request, merchant_id)
        if wants_csv(request):
            return csv_response(
                WALLET_TRANSACTIONS,
                selectors.wallet_transactions(merchant),
                merchant_id=merchant.api_id,
                output=wallet_transaction_output,
            )
        balances = selectors.wallet_balances(merchant)
        page = paginate(
            request,
            selectors.wallet_transactions(merchant, count=balances.transactions),
        )
        return responses.ok(
            wallet_output(
                merchant=merchant, balances=balances, transactions=page.items
            ),
            total=page.total,
        )
