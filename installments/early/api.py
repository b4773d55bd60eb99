"""HTTP in/out for paying early (DESIGN section 14): the plan's customer with
a JWT only; a merchant's API key may read plans, never pay them (403)."""

from rest_framework.views import APIView

from config.api import responses
from config.api.permissions import accepts

from ..plans import selectors
from ..plans.serializers import plan_output
from .serializers import PayEarlyInput
from .services import plan_pay_early


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
