"""HTTP in/out for the merchant's payout account."""

from rest_framework.views import APIView

from config.api import responses
from config.api.permissions import accepts
from merchants.authentication import resolve_merchant

from . import services
from .serializers import PayoutAccountInput, payout_account_output


class PayoutAccountApi(APIView):
    """`PUT /merchant/{merchant_id}/payout-account` `{bank_code, account_number}`:
    the bank account payouts go to; its holder's name is resolved by the
    processor."""

    permission_classes = [accepts("merchant_jwt")]

    def put(self, request, merchant_id):
        merchant = resolve_merchant(request, merchant_id)
        values = PayoutAccountInput.validated(request.data)
        merchant = services.payout_account_set(merchant=merchant, **values)
        return responses.ok(payout_account_output(merchant))
