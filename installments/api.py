"""HTTP in/out for payment plans (DESIGN section 11)."""

from rest_framework.views import APIView

from config.api import responses
from config.api.pagination import paginate
from config.api.permissions import accepts, credential_kind
from merchants.authentication import resolve_merchant

from . import selectors
from .serializers import PlanListQuery, plan_output


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


class PlanListApi(APIView):
    """`GET /api/v1/payment-plans?order_reference=...`: the merchant's plans,
    newest first, paginated with `total`."""

    permission_classes = [accepts("api_key")]

    def get(self, request):
        merchant = resolve_merchant(request)
        query = PlanListQuery(data=request.query_params)
        query.is_valid(raise_exception=True)
        page = paginate(
            request,
            selectors.plans_of_merchant(
                merchant, order_reference=query.validated_data.get("order_reference")
            ),
        )
        return responses.ok(
            [plan_output(plan) for plan in page.items], total=page.total
        )
