"""HTTP in/out for customer registration and sign-in (DESIGN section 4)."""

from rest_framework.views import APIView

from config.api import responses
from config.api.auth import ROLE_CUSTOMER, issue_tokens
from config.api.login_guard import client_ip
from config.api.permissions import accepts

from . import services
from .models import CustomerSignIn
from .serializers import CustomerLoginInput, CustomerRegisterInput, customer_output


def _record_sign_in(request, customer) -> None:
    services.customer_sign_in_record(
        customer=customer,
        how=CustomerSignIn.How.JWT,
        ip=client_ip(request),
        user_agent=request.META.get("HTTP_USER_AGENT", ""),
    )


def _tokens_for(customer) -> dict:
    tokens = issue_tokens(role=ROLE_CUSTOMER, account=customer)
    return {**tokens, "customer_id": customer.public_id}


class CustomerRegisterApi(APIView):
    authentication_classes = []

    def post(self, request):
        values = CustomerRegisterInput.validated(request.data)
        customer = services.customer_register(**values)
        _record_sign_in(request, customer)
        return responses.no_store(responses.created(_tokens_for(customer)))


class CustomerLoginApi(APIView):
    authentication_classes = []

    def post(self, request):
        values = CustomerLoginInput.validated(request.data)
        customer = services.customer_login(**values, client_ip=client_ip(request))
        _record_sign_in(request, customer)
        return responses.no_store(responses.ok(_tokens_for(customer)))


class CustomerMeApi(APIView):
    """`GET /api/v1/customers/me`: the signed-in customer's own profile."""

    permission_classes = [accepts("customer_jwt")]

    def get(self, request):
        return responses.ok(customer_output(request.user))
