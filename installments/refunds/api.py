"""HTTP in/out for plan refunds and cancellation (DESIGN section 14): the
plan's merchant with its API key only; a customer's JWT is a 403, another
merchant's plan a 404."""

from rest_framework.views import APIView

from config.api import responses
from config.api.idempotency import REPLAYED_HEADER, idempotency_key
from config.api.pagination import paginate
from config.api.permissions import accepts
from merchants.audit.actors import actor_from_request
from merchants.authentication import resolve_merchant

from ..plans import selectors as plan_selectors
from . import selectors
from .serializers import RefundCreateInput, refund_output
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
        answer = refund_create(
            plan=plan,
            idempotency_key=key,
            actor=actor_from_request(request),
            **data.validated_data,
        )
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
