"""HTTP in/out for paying early (DESIGN sections 14 and 17): paying is for
the plan's customer with a JWT only (a merchant's API key may read plans,
never pay them: 403); reading a payment for the customer or the plan's
merchant."""

from rest_framework import status
from rest_framework.views import APIView

from config.api import responses
from config.api.permissions import accepts, credential_kind
from merchants.authentication import resolve_merchant

from ..plans import selectors
from ..plans.serializers import plan_output
from .models import EarlyPayment
from .selectors import early_payment_of_plan
from .serializers import PayEarlyInput, early_payment_output
from .services import plan_pay_as_asked


class PlanPayApi(APIView):
    """`POST /api/v1/payment-plans/<plan_id>/pay` (the plan's customer, JWT):
    pay one installment now, or everything left in one charge; answer the
    plan. With `channel` (bank transfer, USSD): 202 and the pending payment,
    with the account or code to pay. A merchant's API key may read plans,
    never pay them (403)."""

    permission_classes = [accepts("customer_jwt")]

    def post(self, request, plan_id):
        plan = selectors.plan_of_customer(request.user, plan_id)
        data = PayEarlyInput.validated(request.data)
        paid = plan_pay_as_asked(customer=request.user, plan=plan, data=data)
        if isinstance(paid, EarlyPayment):
            return responses.ok(
                {"payment": early_payment_output(paid)},
                status=status.HTTP_202_ACCEPTED,
            )
        return responses.ok(plan_output(paid))


class PlanPaymentApi(APIView):
    """`GET /api/v1/payment-plans/<plan_id>/payments/<payment_id>`: one early
    payment of the plan (any channel), for the plan's customer (JWT) or its
    merchant (API key); anyone else's plan is a 404."""

    permission_classes = [accepts("api_key", "customer_jwt")]

    def get(self, request, plan_id, payment_id):
        if credential_kind(request) == "api_key":
            plan = selectors.plan_of_merchant(resolve_merchant(request), plan_id)
        else:
            plan = selectors.plan_of_customer(request.user, plan_id)
        payment = early_payment_of_plan(plan, payment_id)
        return responses.ok({"payment": early_payment_output(payment)})
