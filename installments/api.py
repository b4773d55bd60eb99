"""HTTP in/out for payment plans (DESIGN section 11)."""

from django.conf import settings
from django.http import Http404
from rest_framework.views import APIView

from config.api import responses
from config.api.csv import CsvListApi, wants_csv
from config.api.pagination import paginated
from config.api.permissions import accepts, credential_kind
from config.exports import csv_response
from merchants.authentication import resolve_merchant

from . import exports, selectors
from .collection.sandbox_clock import plan_advance
from .collection.time_travel import plan_collect_next
from .early.services import plan_pay_early
from .exports import installment_row, plan_row
from .reschedules.rules import CUSTOMER, MERCHANT
from .reschedules.services import installment_reschedule
from .serializers import (
    AdvanceInput,
    InstallmentListQuery,
    PayEarlyInput,
    PlanListQuery,
    RescheduleInput,
    plan_output,
)


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
        if wants_csv(request):
            return csv_response(
                exports.PLANS, plans, merchant_id=merchant.public_id, output=plan_row
            )
        return paginated(request, plans, plan_output)


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
        if wants_csv(request):
            return csv_response(
                exports.INSTALLMENTS,
                rows,
                merchant_id=merchant.public_id,
                output=installment_row,
            )
        return paginated(request, rows, installment_row)


class PlanPayApi(APIView):
    """`POST /api/v1/payment-plans/<plan_id>/pay` (the plan's customer, JWT):
    pay one installment now, or everything left in one charge; answer the
    plan. A merchant's API key may read plans, never pay them (403)."""

    permission_classes = [accepts("customer_jwt")]

    def post(self, request, plan_id):
        plan = selectors.plan_of_customer(request.user, plan_id)
        data = PayEarlyInput.validated(request.data)
        paid = plan_pay_early(
            customer=request.user,
            plan=plan,
            installment_id=None if data.get("payoff") else data["installment_id"],
            payment_method_id=data.get("payment_method_id"),
        )
        return responses.ok(plan_output(paid))


class InstallmentRescheduleApi(APIView):
    """`POST /api/v1/payment-plans/<plan_id>/installments/<id>/reschedule`
    `{due_date}`: with the plan's merchant's API key, the merchant's rules
    (any unpaid installment); with its customer's JWT, the customer's limits
    too. Answers the plan; anyone else's plan is a 404."""

    permission_classes = [accepts("api_key", "customer_jwt")]

    def post(self, request, plan_id, installment_id):
        if credential_kind(request) == "api_key":
            plan = selectors.plan_of_merchant(resolve_merchant(request), plan_id)
            by = MERCHANT
        else:
            plan = selectors.plan_of_customer(request.user, plan_id)
            by = CUSTOMER
        data = RescheduleInput.validated(request.data)
        installment_reschedule(
            plan=plan, installment_id=installment_id, due_date=data["due_date"], by=by
        )
        return responses.ok(
            plan_output(selectors.plans_with_installments().get(pk=plan.pk))
        )


class SandboxApi(APIView):
    """A sandbox-only endpoint: API key of the plan's merchant; on a live
    processor the path does not exist (404, before authentication)."""

    permission_classes = [accepts("api_key")]

    def initial(self, request, *args, **kwargs):
        if settings.PROCESSOR != "sandbox":
            raise Http404("Sandbox time travel exists only on the sandbox processor.")
        super().initial(request, *args, **kwargs)


class SandboxCollectNextApi(SandboxApi):
    """`POST /api/v1/sandbox/payment-plans/<plan_id>/collect-next`: collect the
    next installment now, answer the plan."""

    def post(self, request, plan_id):
        merchant = resolve_merchant(request)
        plan = selectors.plan_of_merchant(merchant, plan_id)
        return responses.ok(plan_output(plan_collect_next(plan=plan)))


class SandboxAdvanceApi(SandboxApi):
    """`POST /api/v1/sandbox/payment-plans/<plan_id>/advance` `{to}`: the
    sandbox clock runs the plan's life up to the end of that Lagos date; answer
    the plan and, beside it, what each day did."""

    def post(self, request, plan_id):
        merchant = resolve_merchant(request)
        plan = selectors.plan_of_merchant(merchant, plan_id)
        data = AdvanceInput.validated(request.data)
        advanced, days = plan_advance(plan=plan, to=data["to"])
        return responses.ok(
            plan_output(advanced),
            advance={
                "to": data["to"].isoformat(),
                "days": [day.as_dict() for day in days],
            },
        )
