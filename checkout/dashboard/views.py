"""Dashboard pages of `checkout`: payment links (DESIGN §12).

HTTP in/out only: the form parses and validates, `payment_link_create` and
`payment_link_toggle` (the services of endpoints 4 and 6) do the work, and every
query is scoped to the signed-in merchant.
"""

from django.contrib import messages
from django.http import Http404, HttpResponseBadRequest
from django.template.response import TemplateResponse
from django.urls import reverse
from django.views import View

from config.api.errors import AmountOutOfRange, UnsupportedCurrency
from config.api.ids import looks_like_public_id
from config.web.forms import FormPage
from config.web.pager import page_of
from config.web.session_auth import see_other
from merchants.audit.actors import actor_from_request
from merchants.dashboard.auth import MerchantLoginRequiredMixin, safe_next_url

from .. import services
from ..errors import PaymentLinkNotFound
from ..models import LINK_ID_PREFIX
from ..serializers import public_link_url
from . import selectors as dashboard_selectors
from .forms import PaymentLinkForm, ToggleForm, amount_range_message

LINKS_PAGE_SIZE = 20
SESSIONS_PAGE_SIZE = 20


def _url(name: str, **kwargs) -> str:
    return reverse(f"checkout_dashboard:{name}", kwargs=kwargs)


def _with_public_urls(links):
    for link in links:
        link.public_url = public_link_url(link)
    return links


class PaymentLinksView(MerchantLoginRequiredMixin, FormPage):
    """GET: the links, newest first, and the form. POST: create a link."""

    permission = "view"
    change_permission = "pay_links"

    template_name = "checkout/dashboard/links.html"

    def form(self, data=None):
        return PaymentLinkForm(self.request.merchant, data)

    def submitted(self, request, form):
        try:
            link = services.payment_link_create(
                merchant=request.merchant,
                **form.link_fields,
                actor=actor_from_request(request),
            )
        except AmountOutOfRange:
            form.add_error("amount", amount_range_message())
            return self.render(request, form, status=400)
        except UnsupportedCurrency as error:
            form.add_error("currency", error.message)
            return self.render(request, form, status=400)
        messages.success(
            request,
            f"Payment link “{link.title}” created: share {public_link_url(link)}",
        )
        return see_other(_url("links"))

    def render(self, request, form, status=200):
        page = page_of(
            request,
            dashboard_selectors.links_with_orders(request.merchant),
            LINKS_PAGE_SIZE,
        )
        _with_public_urls(page.object_list)
        return TemplateResponse(
            request,
            self.template_name,
            {"form": form, "page": page, "pager_query": ""},
            status=status,
        )


class PaymentLinkView(MerchantLoginRequiredMixin, View):
    """One link: its details and the checkouts its visitors opened."""

    permission = "view"

    def get(self, request, link_id):
        link = dashboard_selectors.link_of_merchant(request.merchant, link_id)
        if link is None:
            raise Http404("No payment link of yours has this id.")
        link.public_url = public_link_url(link)
        sessions = page_of(
            request, dashboard_selectors.sessions_of_link(link), SESSIONS_PAGE_SIZE
        )
        return TemplateResponse(
            request,
            "checkout/dashboard/link.html",
            {"link": link, "sessions": sessions, "pager_query": ""},
        )


class PaymentLinkToggleView(MerchantLoginRequiredMixin, View):
    """POST `is_active=true|false`: switch the link on or off."""

    permission = "pay_links"

    http_method_names = ["post"]

    def post(self, request, link_id):
        if not looks_like_public_id(link_id, LINK_ID_PREFIX):
            raise Http404("No payment link of yours has this id.")
        form = ToggleForm(request.POST)
        if not form.is_valid():
            return HttpResponseBadRequest("is_active must be true or false.")
        try:
            link = services.payment_link_toggle(
                merchant=request.merchant,
                link_id=link_id,
                is_active=form.cleaned_data["is_active"],
                actor=actor_from_request(request),
            )
        except PaymentLinkNotFound:
            raise Http404("No payment link of yours has this id.") from None
        if link.is_active:
            messages.success(
                request, f"“{link.title}” is active: customers can pay through it."
            )
        else:
            messages.success(
                request,
                f"“{link.title}” is inactive: its URL now shows customers that it "
                "is no longer available.",
            )
        next_url = safe_next_url(request, request.POST.get("next"))
        return see_other(next_url or _url("links"))
