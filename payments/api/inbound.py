"""Inbound processor endpoints. `InboundProcessorApi` is the shared verifier:
endpoint 24 (charge, transfer and refund events) and endpoint 25 (revocations),
each only saying how to handle a verified payload."""

import logging
from abc import ABCMeta, abstractmethod

from django_q.tasks import async_task
from rest_framework.views import APIView

from config.api import responses
from config.api.errors import InvalidRequest

from .. import services
from ..inbound import inbound_finish, inbound_payload, inbound_verified_store
from ..models import InboundRequest

logger = logging.getLogger(__name__)


class InboundProcessorApi(APIView, metaclass=ABCMeta):
    """Verify the signature (401), store the signed request, parse it, hand it
    to `handle`, and record the outcome or the error on the stored row."""

    authentication_classes = []
    permission_classes = []
    throttle_classes = []
    endpoint: str = ""

    @abstractmethod
    def handle(self, *, inbound: InboundRequest, payload: dict) -> str:
        """Act on a verified event; return a short outcome for the stored row."""

    def post(self, request):
        raw = request.body
        inbound = inbound_verified_store(
            endpoint=self.endpoint, body=raw, headers=request.headers
        )
        event = ""
        try:
            payload = inbound_payload(raw)
            event = payload.get("event")
            event = event if isinstance(event, str) else ""
            outcome = self.handle(inbound=inbound, payload=payload)
        except Exception as error:
            inbound_finish(
                inbound,
                event=event,
                error=f"{type(error).__name__}: {error}",
                refused=isinstance(error, InvalidRequest),
            )
            raise
        inbound_finish(inbound, event=event)
        return responses.ok(message=outcome)


class PaymentGatewayWebhookApi(InboundProcessorApi):
    """25. `POST /webhooks/payment-gateway`: payment method revocations."""

    endpoint = InboundRequest.Endpoint.PAYMENT_GATEWAY

    def handle(self, *, inbound, payload):
        return services.revocation_event_handle(inbound=inbound, payload=payload)


class PaystackWebhookApi(InboundProcessorApi):
    """24. `POST /webhooks/paystack`: charge, transfer and refund events.

    Replies 200 as soon as the signature is checked and the request stored; the
    event is handled after the reply by a task (`process_paystack_event`), which
    verifies the reference with the processor before any money moves."""

    endpoint = InboundRequest.Endpoint.PAYSTACK

    def handle(self, *, inbound, payload):
        # A body that is not an event is refused now (400), not accepted and
        # then failed by the task and its retries for days.
        if not isinstance(payload.get("event"), str) or not isinstance(
            payload.get("data"), dict
        ):
            raise InvalidRequest(
                "The body must be a JSON object with 'event' (a string) and 'data' "
                "(an object)."
            )
        self.accepted = inbound
        return "accepted"

    def post(self, request):
        self.accepted = None
        response = super().post(request)
        if self.accepted is not None:
            # After the stored row is final: a task that runs at once (tests,
            # sync mode) then records its outcome on it last.
            try:
                async_task(
                    "payments.tasks.process_paystack_event",
                    self.accepted.pk,
                    task_name=f"paystack-event-{self.accepted.pk}",
                )
            except Exception:
                # The broker is down (Redis): the event is stored, and the retry
                # schedule handles events without an outcome.
                logger.exception("Paystack event %s not queued", self.accepted.pk)
        return response
