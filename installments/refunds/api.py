"""HTTP in/out for plan refunds and cancellation (DESIGN section 14): the
plan's merchant with its API key only; a customer's JWT is a 403, another
merchant's plan a 404."""

from rest_framework.views import APIView

from config.api import responses
from config.api.idempotency import REPLAYED_HEADER, idempotency_key
from config.api.pagination import paginate
from config.api.permissions import accepts
from merchants.authentication import resolve_merchant

from .. import selectors as plan_selectors
from ..cancellation import plan_merchant_cancel
from ..serializers import plan_output
from . import selectors
from .serializers import PlanCancelInput, RefundCreateInput, refund_output
from .services import refund_create


class PlanRefundsApi(APIView):
    """`POST /api/v1/payment-plans/<plan_id>/refunds` (201; a repeated
    `Idempotency-Key` replays the refund it created) and `GET` (the plan's
    refunds, newest first, `{ok, data, total}`).

    Order of checks: credential (401/403), Idempotency-Key (400), body (400),
    plan (404), replay of a live key, refundable (422), an installment being
    charged (409)."""

    permission_classes = [accepts("api_key")]

    def post(self, request, plan_id):
        plan = plan_selectors.plan_of_merchant(resolve_merchant(request), plan_id)
        key = idempotency_key(request)
        data = RefundCreateInput(data=request.data)
        data.is_valid(raise_exception=True)
        answer = refund_create(plan=plan, idempotency_key=key, **data.validated_data)
        headers = {REPLAYED_HEADER: "true"} if answer.replayed else None
        return responses.ok(
            refund_output(answer.refund), status=answer.status_code, headers=headers
        )

    def get(self, request, plan_id):
        plan = plan_selectors.plan_of_merchant(resolve_merchant(request), plan_id)
        page = paginate(request, selectors.refunds_of_plan(plan))
        return responses.ok(
            [refund_output(refund) for refund in page.items], total=page.total
        )


class PlanCancelApi(APIView):
    """`POST /api/v1/payment-plans/<plan_id>/cancel` `{reason}`: no more
    debits, nothing refunded; answers the plan. 409 `plan_not_cancellable`."""

    permission_classes = [accepts("api_key")]

    def post(self, request, plan_id):
        plan = plan_selectors.plan_of_merchant(resolve_merchant(request), plan_id)
        data = PlanCancelInput(data=request.data)
        data.is_valid(raise_exception=True)
        plan_merchant_cancel(plan=plan, reason=data.validated_data["reason"])
        plan = plan_selectors.plans_with_installments().get(pk=plan.pk)
        return responses.ok(plan_output(plan))
