"""HTTP in/out for the merchant's payout account, payouts and their
settlement reports."""

from rest_framework.views import APIView

from config.api import responses
from config.api.csv import CsvListApi, wants_csv
from config.api.errors import NotFound
from config.api.ids import row_by_public_id
from config.api.pagination import paginate
from config.api.permissions import accepts
from config.exports import csv_or_page, csv_response
from merchants.audit.actors import actor_from_request
from merchants.authentication import resolve_merchant
from merchants.team.permissions import require_fresh_code, role_needs

from . import exports, selectors, services
from .serializers import (
    PayoutAccountInput,
    payout_account_output,
    payout_output,
    settlement_line_output,
)


class PayoutAccountApi(APIView):
    """`PUT /merchant/{merchant_id}/payout-account` `{bank_code, account_number}`:
    the bank account payouts go to; its holder's name is resolved by the
    processor."""

    permission_classes = [accepts("merchant_jwt"), role_needs("payout_account")]

    def put(self, request, merchant_id):
        merchant = resolve_merchant(request, merchant_id)
        require_fresh_code(request)
        values = PayoutAccountInput.validated(request.data)
        merchant = services.payout_account_set(
            merchant=merchant, **values, actor=actor_from_request(request)
        )
        return responses.ok(payout_account_output(merchant))


class PayoutListApi(CsvListApi):
    """`GET /merchant/{merchant_id}/payouts`: the merchant's payouts, newest
    first, paginated; `?format=csv` (or `Accept: text/csv`) streams them all."""

    permission_classes = [accepts("api_key", "merchant_jwt"), role_needs("wallet")]

    def get(self, request, merchant_id):
        merchant = resolve_merchant(request, merchant_id)
        payouts = selectors.payouts_of(merchant)
        return csv_or_page(
            request,
            payouts,
            export=exports.PAYOUTS,
            merchant_id=merchant.api_id,
            output=payout_output,
        )


class PayoutSettlementApi(CsvListApi):
    """`GET /merchant/{merchant_id}/payouts/{payout_id}/settlement`: every wallet
    line the payout paid out, with its order; the lines' `net` add up to the
    payout's amount. Paginated; `?format=csv` streams them all."""

    permission_classes = [accepts("api_key", "merchant_jwt"), role_needs("wallet")]

    def get(self, request, merchant_id, payout_id):
        merchant = resolve_merchant(request, merchant_id)
        payout = row_by_public_id(selectors.payouts_of(merchant), payout_id, "po")
        if payout is None:
            raise NotFound("No payout of yours has this id.")
        if wants_csv(request):
            return csv_response(
                exports.SETTLEMENT,
                selectors.settlement_report(payout),
                merchant_id=merchant.api_id,
                output=settlement_line_output,
                name=f"settlement_{payout.public_id}",
            )
        page = paginate(request, selectors.settlement_items(payout))
        lines = selectors.settlement_lines(payout, page.items)
        return responses.ok(
            {
                **payout_output(payout),
                "lines": [settlement_line_output(line) for line in lines],
            },
            total=page.total,
        )
