"""HTTP in/out for endpoints 21 (test), 22 (replay) and 23 (failed attempts), and
the events API (DESIGN section 16)."""

from rest_framework import serializers
from rest_framework.views import APIView

from config.api import responses
from config.api.csv import CsvListApi, wants_csv
from config.api.errors import NotFound
from config.api.pagination import paginated
from config.api.permissions import accepts
from config.exports import csv_response
from merchants.audit.actors import actor_from_request
from merchants.authentication import resolve_merchant
from merchants.team.permissions import role_needs

from . import selectors, services
from .exports import DELIVERIES, delivery_row
from .serializers import (
    EventListQuery,
    WebhookTestInput,
    event_output,
    failed_attempt_output,
    outcome_output,
)


class WebhookTestApi(APIView):
    permission_classes = [accepts("merchant_jwt"), role_needs("webhooks")]

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
    permission_classes = [accepts("merchant_jwt"), role_needs("webhooks")]

    def post(self, request, event_id):
        merchant = resolve_merchant(request)
        event = selectors.event_of_merchant(merchant=merchant, public_id=event_id)
        if event is None:
            raise NotFound("No event of yours has this id.")
        result = services.event_replay(event=event, actor=actor_from_request(request))
        return responses.ok(
            **outcome_output(result.outcome), event_id=result.event.public_id
        )


class FailedAttemptsApi(APIView):
    permission_classes = [accepts("merchant_jwt"), role_needs("events")]

    def get(self, request):
        merchant = resolve_merchant(request)
        attempts = selectors.failed_attempts(
            merchant=merchant, event_id=request.query_params.get("event_id")
        )
        return paginated(request, attempts, failed_attempt_output)


class EventListApi(CsvListApi):
    """`GET /api/v1/events?type=&created_after=`: the merchant's events of the
    last 30 days, newest first, each the envelope its webhook carried;
    `?format=csv` streams them all, each with its delivery (the dashboard's
    delivery log)."""

    permission_classes = [accepts("api_key")]

    def get(self, request):
        merchant = resolve_merchant(request)
        # A plain dict: given a QueryDict, DRF reads `?type=` (empty) as absent.
        query = EventListQuery(data=request.query_params.dict())
        query.is_valid(raise_exception=True)
        events = selectors.recent_events(
            merchant=merchant,
            event_type=query.validated_data.get("type"),
            created_after=query.validated_data.get("created_after"),
        )
        if wants_csv(request):
            return csv_response(
                DELIVERIES,
                selectors.with_latest_attempt(events),
                merchant_id=merchant.public_id,
                output=delivery_row,
            )
        return paginated(request, events, event_output)


class EventDetailApi(APIView):
    """`GET /api/v1/events/<event_id>`: one of the merchant's events of the last
    30 days; anyone else's, or an older one, is a 404."""

    permission_classes = [accepts("api_key")]

    def get(self, request, event_id):
        merchant = resolve_merchant(request)
        event = selectors.recent_event_of_merchant(
            merchant=merchant, public_id=event_id
        )
        if event is None:
            raise NotFound("No event of yours has this id in the last 30 days.")
        return responses.ok(event_output(event))
