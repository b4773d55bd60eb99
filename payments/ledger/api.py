"""HTTP in/out for the merchant's wallet (endpoint 9)."""

from rest_framework.views import APIView

from config.api import responses
from config.api.pagination import paginate
from config.api.permissions import accepts
from merchants.authentication import resolve_merchant

from . import selectors
from .serializers import wallet_output


class WalletApi(APIView):
    """9. `GET /merchant/{merchant_id}/wallet`: balances from the ledger and the
    wallet's transactions, newest first, paginated on the wallet lines' index (`total`
    counts them all, from the kept count: docs/wallet.md)."""

    permission_classes = [accepts("api_key", "merchant_jwt")]

    def get(self, request, merchant_id):
        merchant = resolve_merchant(request, merchant_id)
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
