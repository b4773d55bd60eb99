"""HTTP in/out for endpoints 21 (test), 22 (replay) and 23 (failed attempts)."""

from rest_framework import serializers
from rest_framework.views import APIView

from config.api import responses
from config.api.errors import NotFound
from config.api.pagination import paginated
from config.api.permissions import accepts
from merchants.authentication import resolve_merchant

from . import selectors, services
from .serializers import (
    WebhookTestInput,
    failed_attempt_output,
    outcome_output,
)


class WebhookTestApi(APIView):
    permission_classes = [accepts("merchant_jwt")]

    def post(self, request):
        merchant = resolve_merchant(request)
        values = WebhookTestInput.validated(request.data)
        url = values.get("webhook_url", merchant.webhook_url)
        secret = values.get("webhook_secret", merchant.webhook_secret)
        missing = {
            name: ["Send it, or set it first in the merchant settings."]
            for name, value in (("webhook_url", url), ("webhook_secret", secret))
            if not value
        }
        if missing:
            raise serializers.ValidationError(missing)
        outcome = services.webhook_test(merchant=merchant, url=url, secret=secret)
        return responses.ok(**outcome_output(outcome))


class EventReplayApi(APIView):
    permission_classes = [accepts("merchant_jwt")]

    def post(self, request, event_id):
        merchant = resolve_merchant(request)
        event = selectors.event_of_merchant(merchant=merchant, public_id=event_id)
        if event is None:
            raise NotFound("No event of yours has this id.")
        result = services.event_replay(event=event)
        return responses.ok(
            **outcome_output(result.outcome), event_id=result.event.public_id
        )


class FailedAttemptsApi(APIView):
    permission_classes = [accepts("merchant_jwt")]

    def get(self, request):
        merchant = resolve_merchant(request)
        attempts = selectors.failed_attempts(
            merchant=merchant, event_id=request.query_params.get("event_id")
        )
        return paginated(request, attempts, failed_attempt_output)
