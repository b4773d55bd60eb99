"""HTTP in/out for rescheduling (DESIGN section 15): the plan's merchant with
its API key, or its customer with a JWT."""

from rest_framework.views import APIView

from config.api import responses
from config.api.permissions import accepts, credential_kind
from merchants.audit.actors import actor_from_request
from merchants.authentication import resolve_merchant

from ..plans import selectors
from ..plans.serializers import plan_output
from .rules import CUSTOMER, MERCHANT
from .serializers import RescheduleInput
from .services import installment_reschedule


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
            plan=plan,
            installment_id=installment_id,
            due_date=data["due_date"],
            by=by,
            actor=actor_from_request(request) if by == MERCHANT else None,
        )
        return responses.ok(
            plan_output(selectors.plans_with_installments().get(pk=plan.pk))
        )
