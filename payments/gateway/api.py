"""HTTP in for the inbound processor endpoints: 24 (charge, transfer and refund
events) and 25 (revocations). Everything happens in `inbound_receive`."""

from rest_framework.views import APIView

from config.api import responses

from .models import InboundRequest
from .services.inbound import inbound_receive


class InboundProcessorApi(APIView):
    """Called by the processor, signed with its secret (no credential of ours)."""

    authentication_classes = []
    permission_classes = []
    throttle_classes = []
    endpoint: str = ""

    def post(self, request):
        outcome = inbound_receive(
            endpoint=self.endpoint, body=request.body, headers=request.headers
        )
        return responses.ok(message=outcome)


class PaystackWebhookApi(InboundProcessorApi):
    """24. `POST /webhooks/paystack`: charge, transfer and refund events, answered
    200 once the signature is checked and the request stored; the event is
    handled after the reply."""

    endpoint = InboundRequest.Endpoint.PAYSTACK


class PaymentGatewayWebhookApi(InboundProcessorApi):
    """25. `POST /webhooks/payment-gateway`: payment method revocations."""

    endpoint = InboundRequest.Endpoint.PAYMENT_GATEWAY
