"""HTTP in/out for pay links (DESIGN section 17): the plan's merchant, by API
key only, makes one to send through its own channels. A customer's JWT is a
403: customers get theirs in their messages."""

from rest_framework.views import APIView

from config.api import responses
from config.api.permissions import accepts
from merchants.authentication import resolve_merchant

from ..plans import selectors
from .serializers import pay_link_output
from .services import pay_link_create_for_merchant, pay_link_url


class PlanPayLinksApi(APIView):
    """`POST /api/v1/payment-plans/<plan_id>/pay-links`: a new link to the
    plan's pay page (201 `{url, expires_at}`); 409 `plan_not_collectable` for a
    plan with nothing to pay."""

    permission_classes = [accepts("api_key")]

    def post(self, request, plan_id):
        plan = selectors.plan_of_merchant(resolve_merchant(request), plan_id)
        link = pay_link_create_for_merchant(plan=plan)
        return responses.no_store(
            responses.created(pay_link_output(link, pay_link_url(link)))
        )
