"""HTTP in/out for cancelling a plan (DESIGN section 14): the plan's merchant
with its API key only; a customer's JWT is a 403, another merchant's plan a
404."""

from rest_framework.views import APIView

from config.api import responses
from config.api.permissions import accepts
from merchants.audit.actors import actor_from_request
from merchants.authentication import resolve_merchant

from ..plans import selectors as plan_selectors
from ..plans.serializers import plan_output
from .serializers import PlanCancelInput
from .services import plan_merchant_cancel


class PlanCancelApi(APIView):
    """`POST /api/v1/payment-plans/<plan_id>/cancel` `{reason}`: no more
    debits, nothing refunded; answers the plan. 409 `plan_not_cancellable`."""

    permission_classes = [accepts("api_key")]

    def post(self, request, plan_id):
        plan = plan_selectors.plan_of_merchant(resolve_merchant(request), plan_id)
        data = PlanCancelInput(data=request.data)
        data.is_valid(raise_exception=True)
        plan_merchant_cancel(
            plan=plan,
            reason=data.validated_data["reason"],
            actor=actor_from_request(request),
        )
        plan = plan_selectors.plans_with_installments().get(pk=plan.pk)
        return responses.ok(plan_output(plan))
