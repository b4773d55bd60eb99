"""HTTP in/out for payment plans (DESIGN section 11)."""

from rest_framework.views import APIView

from config.api import responses
from config.api.csv import CsvListApi
from config.api.permissions import accepts, credential_kind
from config.exports import csv_or_page
from merchants.authentication import resolve_merchant

from . import exports, selectors
from .exports import installment_row, plan_row
from .serializers import InstallmentListQuery, PlanListQuery, plan_output


class PlanDetailApi(APIView):
    """`GET /api/v1/payment-plans/<plan_id>`: the plan's merchant (API key) or its
    customer (customer JWT); anyone else's plan is a 404."""

    permission_classes = [accepts("api_key", "customer_jwt")]

    def get(self, request, plan_id):
        if credential_kind(request) == "api_key":
            merchant = resolve_merchant(request)
            plan = selectors.plan_of_merchant(merchant, plan_id)
        else:
            plan = selectors.plan_of_customer(request.user, plan_id)
        return responses.ok(plan_output(plan))


class PlanListApi(CsvListApi):
    """`GET /api/v1/payment-plans?order_reference=...`: the merchant's plans,
    newest first, paginated with `total`; `?format=csv` streams them all."""

    permission_classes = [accepts("api_key")]

    def get(self, request):
        merchant = resolve_merchant(request)
        query = PlanListQuery(data=request.query_params)
        query.is_valid(raise_exception=True)
        plans = selectors.plans_of_merchant(
            merchant, order_reference=query.validated_data.get("order_reference")
        )
        return csv_or_page(
            request,
            plans,
            export=exports.PLANS,
            merchant_id=merchant.public_id,
            output=plan_output,
            csv_output=plan_row,
        )


class InstallmentListApi(CsvListApi):
    """`GET /api/v1/installments?due_from=&due_to=&status=`: the merchant's
    installments due in a range, by due date, paginated with `total`;
    `?format=csv` streams them all."""

    permission_classes = [accepts("api_key")]

    def get(self, request):
        merchant = resolve_merchant(request)
        # A plain dict: given a QueryDict, DRF reads `?status=` (empty) as absent.
        query = InstallmentListQuery(data=request.query_params.dict())
        query.is_valid(raise_exception=True)
        rows = selectors.installments_due(merchant, **query.validated_data)
        return csv_or_page(
            request,
            rows,
            export=exports.INSTALLMENTS,
            merchant_id=merchant.public_id,
            output=installment_row,
        )
