"""Dashboard pages of `webhooks`: the delivery log, an event with its attempts,
replay, and "send test event" (DESIGN §10, §12).

HTTP in/out only: the pages call the same services as endpoints 21 (test) and
22 (replay), and every query is scoped to the signed-in merchant.
"""

import json

from django.contrib import messages
from django.http import Http404, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.views import View

from config.exports import csv_response
from config.web.pager import page_of, query_without
from config.web.session_auth import see_other
from merchants.audit.actors import actor_from_request
from merchants.dashboard.auth import MerchantLoginRequiredMixin, safe_next_url

from .. import services
from ..errors import WebhookUrlNotAllowed
from ..exports import DELIVERIES, delivery_row
from ..transport import Outcome
from . import selectors as dashboard_selectors
from .forms import DeliveryLogFilterForm

LOG_PAGE_SIZE = 20
RECENT_TESTS = 5


def _url(name: str, **kwargs) -> str:
    return reverse(f"webhooks_dashboard:{name}", kwargs=kwargs)


def outcome_summary(outcome: Outcome) -> str:
    """One sentence a person reads: "delivered (HTTP 200 in 12 ms)"."""
    timing = f"{outcome.latency_ms} ms"
    if outcome.delivered:
        return f"delivered (HTTP {outcome.status_code} in {timing})"
    if outcome.status_code is None:
        return f"not delivered: {outcome.error} (no HTTP answer, {timing})"
    return f"not delivered: {outcome.error} ({timing})"


class DeliveryLogView(MerchantLoginRequiredMixin, View):
    """GET: the log with its filters. POST: send a test event to the saved URL,
    signed with the saved secret, and show the result above the log."""

    permission = "events"
    change_permission = "webhooks"

    template_name = "webhooks/dashboard/log.html"

    def get(self, request):
        return self._render(request)

    def post(self, request):
        merchant = request.merchant
        missing = [
            label
            for label, value in (
                ("a webhook URL", merchant.webhook_url),
                ("a signing secret", merchant.webhook_secret),
            )
            if not value
        ]
        if missing:
            test = {"refused": f"Set {' and '.join(missing)} in Settings first."}
            return self._render(request, test=test, status=400)
        try:
            outcome = services.webhook_test(
                merchant=merchant,
                url=merchant.webhook_url,
                secret=merchant.webhook_secret,
            )
        except WebhookUrlNotAllowed as error:
            return self._render(request, test={"refused": error.message}, status=400)
        return self._render(request, test={"outcome": outcome})

    def _render(self, request, *, test=None, status=200):
        merchant = request.merchant
        form = DeliveryLogFilterForm(request.GET)
        form.is_valid()
        events = dashboard_selectors.event_log(merchant=merchant, **form.filters())
        page = page_of(request, events, LOG_PAGE_SIZE)
        return TemplateResponse(
            request,
            self.template_name,
            {
                "form": form,
                "page": page,
                "pager_query": query_without(request),
                "filtered": any(form.filters().values()),
                "test": test,
                "recent_tests": dashboard_selectors.recent_tests(
                    merchant=merchant, limit=RECENT_TESTS
                ),
                # Where a replay button brings the merchant back to.
                "log_url": request.get_full_path()
                if request.method == "GET"
                else _url("log"),
            },
            status=status,
        )


class EventDetailView(MerchantLoginRequiredMixin, View):
    permission = "events"

    def get(self, request, event_id):
        event = dashboard_selectors.event_with_attempts(
            merchant=request.merchant, event_id=event_id
        )
        if event is None:
            raise Http404("No event of yours has this id.")
        return TemplateResponse(
            request,
            "webhooks/dashboard/event.html",
            {
                "event": event,
                "attempts": dashboard_selectors.attempts_of(event),
                "body": json.dumps(event.envelope, indent=2, ensure_ascii=False),
            },
        )


class AttemptRedirectView(MerchantLoginRequiredMixin, View):
    """`/dashboard/webhooks/deliveries/<dlv_id>/`: the attempt's event page (the
    ids of endpoint 23's items open here); a test's line in the log's recent
    tests (its event is not stored)."""

    permission = "events"

    def get(self, request, attempt_id):
        attempt = dashboard_selectors.attempt_of_merchant(
            merchant=request.merchant, attempt_id=attempt_id
        )
        if attempt is None:
            raise Http404("No delivery attempt of yours has this id.")
        if attempt.event is None:
            return HttpResponseRedirect(f"{_url('log')}#{attempt.public_id}")
        url = _url("event", event_id=attempt.event.public_id)
        return HttpResponseRedirect(f"{url}#{attempt.public_id}")


class EventReplayView(MerchantLoginRequiredMixin, View):
    """POST: send the event again now (endpoint 22's service), then back to where
    the button was, with the outcome as a message."""

    permission = "webhooks"

    http_method_names = ["post"]

    def post(self, request, event_id):
        event = dashboard_selectors.event_with_attempts(
            merchant=request.merchant, event_id=event_id
        )
        if event is None:
            raise Http404("No event of yours has this id.")
        outcome = services.event_replay(
            event=event, actor=actor_from_request(request)
        ).outcome
        text = f"Replayed {event.event_type} {event.public_id}: " + outcome_summary(
            outcome
        )
        if outcome.delivered:
            messages.success(request, text)
        else:
            messages.error(request, text)
        next_url = safe_next_url(request, request.POST.get("next"))
        return see_other(next_url or _url("event", event_id=event.public_id))


class DeliveryLogCsv(MerchantLoginRequiredMixin, View):
    """The delivery log as CSV (DESIGN section 16), with the page's filters."""

    permission = "events"

    def get(self, request):
        form = DeliveryLogFilterForm(request.GET)
        form.is_valid()
        return csv_response(
            DELIVERIES,
            dashboard_selectors.event_log(merchant=request.merchant, **form.filters()),
            merchant_id=request.merchant.public_id,
            output=delivery_row,
        )
