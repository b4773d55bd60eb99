"""HTTP in/out for a customer's payment methods (endpoints 10-20)."""

from rest_framework.views import APIView

from config.api import responses
from config.api.pagination import paginated
from config.api.permissions import accepts

from ..customers.models import Customer
from ..customers.selectors import own_customer
from ..gateway.selectors import banks
from . import selectors, services
from .errors import TermsNotAccepted
from .serializers import (
    InitializeCardInput,
    InitiateMandateInput,
    MethodListQuery,
    SubmitBirthdayInput,
    SubmitOtpInput,
    SubmitPhoneInput,
    VerifyCardInput,
    VerifyMandateInput,
    bank_output,
    payment_method_output,
)
from .terms import MandateConsent


class CustomerApi(APIView):
    permission_classes = [accepts("customer_jwt")]

    def customer_input(self, request, input_class) -> tuple[Customer, dict]:
        """The body, validated by `input_class`, without its `customer_id`, and
        the caller's own customer that it names (404 for anyone else's)."""
        values = input_class.validated(request.data)
        return own_customer(request.user, values.pop("customer_id")), values


class PaymentMethodListApi(CustomerApi):
    """10. `GET /payment-methods/customers/{customer_id}`."""

    def get(self, request, customer_id):
        customer = own_customer(request.user, customer_id)
        query = MethodListQuery(data=request.query_params.dict())
        query.is_valid(raise_exception=True)
        livemode = query.validated_data["livemode"]
        return paginated(
            request,
            selectors.payment_methods_listed(
                customer, livemode=livemode
            ).select_related("customer"),
            payment_method_output,
        )


class BankListApi(CustomerApi):
    """11. `GET /payment-methods/banks`."""

    def get(self, request):
        return responses.ok([bank_output(bank) for bank in banks()])


class CardInitializeApi(CustomerApi):
    """12. `POST /payment-methods/initialize-card`."""

    def post(self, request):
        customer, values = self.customer_input(request, InitializeCardInput)
        setup = services.card_setup_initialize(customer=customer, **values)
        return responses.ok(
            authorization_url=setup.authorization_url, reference=setup.reference
        )


class CardVerifyApi(CustomerApi):
    """13. `POST /payment-methods/verify-card`."""

    def post(self, request):
        customer, values = self.customer_input(request, VerifyCardInput)
        method = services.card_setup_verify(customer=customer, **values)
        return responses.ok(payment_method_output(method))


def _mandate_response(outcome, *, with_reference: bool = True):
    siblings = {"next_action": outcome.next_action}
    if with_reference:
        siblings["reference"] = outcome.mandate.reference
    if outcome.next_action == "success":
        return responses.ok(
            payment_method_output(outcome.payment_method),
            **siblings,
            display_text=outcome.display_text,
        )
    siblings["display_text"] = outcome.display_text
    if outcome.next_action == "open_url":
        siblings["url"] = outcome.url
    return responses.ok(**siblings)


class MandateInitiateApi(CustomerApi):
    """14. `POST /payment-methods/customers/{customer_id}/initiate-bank-mandate`."""

    def post(self, request, customer_id):
        customer = own_customer(request.user, customer_id)
        accepted = isinstance(request.data, dict) and (
            request.data.get("terms_accepted") is True
        )
        if not accepted:
            raise TermsNotAccepted()
        values = InitiateMandateInput.validated(request.data)
        del values["terms_accepted"]
        outcome = services.mandate_initiate(
            customer=customer, consent=MandateConsent.of(request), **values
        )
        return _mandate_response(outcome)


class MandateStepApi(CustomerApi):
    """15-18: one step of a bank mandate; `field` is the step's own field."""

    input_class = None
    service = None
    field = None

    def post(self, request):
        customer, values = self.customer_input(request, self.input_class)
        details = services.MandateDetails(
            bank_code=values.get("bank_code"),
            account_number=values.get("account_number"),
            is_default=values.get("is_default"),
        )
        extra = {self.field: values[self.field]} if self.field else {}
        outcome = self.service(
            customer=customer, reference=values["reference"], details=details, **extra
        )
        return _mandate_response(outcome)


class MandateSubmitOtpApi(MandateStepApi):
    input_class = SubmitOtpInput
    service = staticmethod(services.mandate_submit_otp)
    field = "otp"


class MandateSubmitBirthdayApi(MandateStepApi):
    input_class = SubmitBirthdayInput
    service = staticmethod(services.mandate_submit_birthday)
    field = "birthday"


class MandateSubmitPhoneApi(MandateStepApi):
    input_class = SubmitPhoneInput
    service = staticmethod(services.mandate_submit_phone)
    field = "phone"


class MandateVerifyApi(MandateStepApi):
    input_class = VerifyMandateInput
    service = staticmethod(services.mandate_verify)


class PaymentMethodDefaultApi(CustomerApi):
    """19. `PUT /payment-methods/{method_id}/default`."""

    def put(self, request, method_id):
        method = services.payment_method_set_default(
            customer=request.user, public_id=method_id
        )
        return responses.ok(
            message=f"{method.label} is now your default payment method."
        )


class PaymentMethodDeleteApi(CustomerApi):
    """20. `DELETE /payment-methods/{method_id}`."""

    def delete(self, request, method_id):
        method = services.payment_method_delete(
            customer=request.user, public_id=method_id
        )
        return responses.ok(message=f"{method.label} was removed.")
