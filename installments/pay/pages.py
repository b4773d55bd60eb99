"""The pay page of a pay link, `/pay/<token>` (DESIGN section 17).

Public: no sign-in. It shows only the plan's merchant, order reference, the
installments due or overdue with the balance, and the customer's saved methods
masked; never the customer's name, e-mail address, phone number or other plans.
Every answer says `Referrer-Policy: same-origin` (the token is in the path, and
must not leave in a Referer header to another site; `no-referrer` would make a
browser send `Origin: null` with the page's own forms, which the CSRF check
refuses) and `noindex`, and is never cached.

Opening it counts per client address and per token (an unknown token too);
"send me a new link" per client address and per plan. An expired, revoked or
unknown link gets a page that says so with the "send me a new link" button;
its answer is the same whether the token was ours or not, and never shows the
contacts it went to.

The pay actions are checked here (`PayChoiceForm`) and carried out by
paying.py. Only an active plan is paid here: a defaulted plan's link shows
what is owed and who to settle it with (its merchant), not a way to pay.
"""

from django.conf import settings
from django.urls import reverse
from django.views.decorators.http import (
    require_GET,
    require_http_methods,
    require_POST,
)

from config.api import ratelimit
from config.api.login_guard import client_ip
from config.api.rates import parse_rate
from payments.gateway.processors.base import USSD_BANKS
from payments.methods.selectors import payment_methods_chargeable

from ..paylinks import tokens
from ..paylinks.selectors import is_overdue, pay_link_by_token, plan_dues
from ..paylinks.services import pay_link_used
from ..plans.models import PaymentPlan
from . import paying
from .forms import PayChoiceForm
from .services import pay_link_resend

GONE = {
    "unknown": (
        404,
        "This pay link is not valid",
        "Check that you opened the whole link from your message. You can also "
        "ask for a new one: it goes to the e-mail address and phone number the "
        "shop has for you.",
    ),
    "expired": (
        410,
        "This pay link has expired",
        "Pay links work for 7 days. Ask for a new one: it goes to the e-mail "
        "address and phone number the shop has for you. Nothing was charged.",
    ),
    "revoked": (
        410,
        "This pay link no longer works",
        "It was switched off. Ask for a new one: it goes to the e-mail address "
        "and phone number the shop has for you. Nothing was charged.",
    ),
}


_page = paying.page


def _over_budget(request, budgets: list[tuple[str, str]]):
    """Count one request against each (counter, rate); the 429 page of the
    first budget spent, else None."""
    for name, rate in budgets:
        limit, seconds = parse_rate(rate)
        window = ratelimit.hit(name, limit=limit, window_seconds=seconds)
        if window.exceeded:
            wait = window.seconds_to_reset()
            response = _page(
                request,
                "installments/pay/busy.html",
                {"minutes": max(1, -(-wait // 60))},
                status=429,
            )
            response["Retry-After"] = str(wait)
            return response
    return None


def _gone(request, token: str, state: str):
    status, heading, message = GONE[state]
    return _page(
        request,
        "installments/pay/gone.html",
        {"state": state, "heading": heading, "message": message, "token": token},
        status=status,
    )


def _open_link(request, token):
    """(the open link `token` names, None) after counting the request against
    the page's budgets; (None, the answer) when over budget or the link is
    unknown, expired or revoked."""
    ip = client_ip(request)
    busy = _over_budget(
        request,
        [
            (f"pay-ip:{ip}", settings.PAY_PAGE_RATE_PER_IP),
            (f"pay-link:{tokens.token_hash(token)}", settings.PAY_PAGE_RATE_PER_LINK),
        ],
    )
    if busy:
        return None, busy
    link = pay_link_by_token(token)
    if link is None:
        return None, _gone(request, token, "unknown")
    state = link.state()
    if state != "open":
        return None, _gone(request, token, state)
    pay_link_used(link)
    return link, None


@require_http_methods(["GET", "POST"])
def pay_page(request, token):
    """What the link's plan owes and the choice of what to pay and how (GET);
    the choice, checked and carried out (POST)."""
    link, answer = _open_link(request, token)
    if answer:
        return answer
    plan = link.plan
    dues = plan_dues(plan)
    payable = dues.anything and plan.status == PaymentPlan.Status.ACTIVE
    methods = (
        payment_methods_chargeable(plan.customer, livemode=plan.merchant.livemode)
        if payable
        else []
    )
    form = PayChoiceForm(
        request.POST if request.method == "POST" else None, dues=dues, methods=methods
    )
    if payable and form.is_bound and form.is_valid():
        return paying.pay(request, link, token, form.choice)
    return _page(
        request,
        "installments/pay/page.html",
        {
            "token": token,
            "plan": plan,
            "merchant_name": plan.merchant.business_name,
            "dues": dues,
            "payable": payable,
            "rows": [(row, is_overdue(row, dues.today)) for row in dues.due],
            "methods": methods,
            "form": form,
            "ussd_banks": USSD_BANKS.items(),
        },
        status=422 if form.is_bound else 200,
    )


@require_GET
def pay_card_return(request, token):
    """Back from the processor's card page (paying.card_return)."""
    link, answer = _open_link(request, token)
    return answer or paying.card_return(request, link, token)


@require_GET
def pay_payment(request, token, payment_id):
    """A transfer or USSD payment made from the link (paying.payment_page)."""
    link, answer = _open_link(request, token)
    return answer or paying.payment_page(request, link, token, payment_id)


@require_POST
def pay_new_link(request, token):
    """ "Send me a new link": to the contacts on file of the plan of the link
    `token` names, whatever the link's state. The same page whether the token
    was ours or not, and nothing on it says where the link went."""
    busy = _over_budget(
        request,
        [(f"pay-resend-ip:{client_ip(request)}", settings.PAY_LINK_RESEND_RATE_PER_IP)],
    )
    if busy:
        return busy
    link = pay_link_by_token(token)
    if link is not None:
        busy = _over_budget(
            request,
            [
                (
                    f"pay-resend-plan:{link.plan.public_id}",
                    settings.PAY_LINK_RESEND_RATE_PER_PLAN,
                )
            ],
        )
        if busy:
            return busy
        pay_link_resend(link=link)
    return _page(
        request,
        "installments/pay/new_link_sent.html",
        {"again": reverse("pay-new-link", args=[token])},
    )
