"""HTTP in/out for the merchant's wallet (endpoint 9) and payout account."""

from rest_framework.views import APIView

from config.api import responses
from config.api.pagination import paginate
from config.api.permissions import accepts
from merchants.authentication import resolve_merchant

from .. import selectors, services
from ..serializers import PayoutAccountInput, payout_account_output, wallet_output


class WalletApi(APIView):
    """9. `GET /merchant/{merchant_id}/wallet`: balances from the ledger and the
    wallet's transactions, newest first, paginated (`total` counts them all)."""

    permission_classes = [accepts("api_key", "merchant_jwt")]

    def get(self, request, merchant_id):
        merchant = resolve_merchant(request, merchant_id)
        page = paginate(request, selectors.wallet_transactions(merchant))
        balances = selectors.wallet_balances(merchant)
        return responses.ok(
            wallet_output(
                merchant=merchant, balances=balances, transactions=page.items
            ),
            total=page.total,
        )


class PayoutAccountApi(APIView):
    """`PUT /merchant/{merchant_id}/payout-account` `{bank_code, account_number}`:
    the bank account payouts go to; its holder's name is resolved by the
    processor."""

    permission_classes = [accepts("merchant_jwt")]

    def put(self, request, merchant_id):
        merchant = resolve_merchant(request, merchant_id)
        data = PayoutAccountInput(data=request.data)
        data.is_valid(raise_exception=True)
        merchant = services.payout_account_set(merchant=merchant, **data.validated_data)
        return responses.ok(payout_account_output(merchant))
