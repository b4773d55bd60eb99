"""The dashboard's "Test data" switch (DESIGN section 21, docs/dashboard.md):
a POST from the header of every page turns the dashboard to the account's
test side or back to live data (merchants.dashboard.auth keeps the choice in
the session). Every member who may see the dashboard may switch; nothing is
recorded, since switching changes no data."""

from django.http import HttpResponseBadRequest
from django.template.response import TemplateResponse
from django.urls import Resolver404, resolve, reverse
from django.views import View

from config.web.session_auth import see_other

from .auth import (
    MerchantLoginRequiredMixin,
    may_use_test_side,
    safe_next_url,
    set_test_mode,
)

CHOICES = {"on": True, "off": False}


def back_to(request, candidate: str | None) -> str:
    """The page the switch was used on, when it names no record: a plan or an
    event of one side is "not found" on the other, so from a record's page
    the switch goes to the overview."""
    url = safe_next_url(request, candidate)
    if url:
        try:
            match = resolve(url.split("?", 1)[0])
        except Resolver404:
            match = None
        if match is not None and not match.kwargs:
            return url
    return reverse("merchants_dashboard:overview")


class SideSwitchView(MerchantLoginRequiredMixin, View):
    """POST `test_mode` on or off, and `next`, the page to return to."""

    http_method_names = ["post"]
    permission = "view"

    def post(self, request):
        on = CHOICES.get(request.POST.get("test_mode", ""))
        if on is None:
            return HttpResponseBadRequest("test_mode is on or off.")
        if on and not may_use_test_side(request.account):
            return TemplateResponse(
                request, "merchants/dashboard/test_mode_refused.html", {}, status=403
            )
        set_test_mode(request, on)
        return see_other(back_to(request, request.POST.get("next")))
