"""Paying from the pay page of a pay link (DESIGN section 17): the customer's
choice (forms.py) carried out by the early-payment services every other way of
paying early goes through (installments/early), so a payment from a link claims
its installments exactly like the API's and the engine's (same lock, same
references, same settlement).

- Bank transfer or USSD: a pending payment with the account or the code to pay,
  shown on `/pay/<token>/payments/<id>` until the money lands or it expires.
- A saved card or bank account: only after the one-time code sent to the
  customer's e-mail address and phone on file (never shown here) is typed in,
  so a forwarded link can never charge a saved method by itself.
- A new card: the processor's card page (the redirect flow of `/account/`),
  back to `/pay/<token>/card`, then charged for the choice; the card is kept
  on the customer's account (not as their default), as one added there is.
  What was chosen travels signed in the return address, for this link only.
"""

from django.core import signing
from django.http import Http404
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.cache import add_never_cache_headers

from config.api.errors import DomainError
from config.web.session_auth import see_other
from payments.customers.models import SignInCode
from payments.methods import services as method_services

from ..early.selectors import early_payment_installments, early_payment_of_plan
from ..early.serializers import early_payment_status
from ..early.services import plan_pay_early, plan_pay_offline
from ..paylinks.models import PayLink
from ..signin.services import sign_in_code_check, sign_in_code_send
from .forms import How, PayChoice, What

CARD_RETURN_SALT = "installments.pay.card-return"
# The processor's card page and back: an hour is plenty, a day would not be.
CARD_RETURN_MAX_AGE = 60 * 60


def page(request, template: str, context: dict, *, status: int = 200):
    """Every answer of the pay pages: never cached, no referrer to other sites,
    not indexed."""
    response = TemplateResponse(request, template, context, status=status)
    add_never_cache_headers(response)
    response["Referrer-Policy"] = "same-origin"
    response["X-Robots-Tag"] = "noindex, nofollow"
    return response


def _what(choice: PayChoice) -> dict:
    """The early-payment services' words for what is paid."""
    if choice.what == What.INSTALLMENT:
        return {"installment_id": choice.installments[0].public_id}
    if choice.what == What.OVERDUE:
        return {"installment_id": None, "overdue": True}
    return {"installment_id": None}


def _outcome(request, link: PayLink, token: str, *, error: str = "", plan=None):
    """What a charge of a saved method or a new card did."""
    return page(
        request,
        "installments/pay/outcome.html",
        {"plan": plan or link.plan, "error": error, "token": token},
        status=402 if error else 200,
    )


def _charge(request, link, token, choice: PayChoice, *, method):
    plan = link.plan
    try:
        paid = plan_pay_early(
            customer=plan.customer, plan=plan, method=method, **_what(choice)
        )
    except DomainError as error:
        return _outcome(request, link, token, error=error.message)
    return _outcome(request, link, token, plan=paid)


def _code_page(request, token, choice: PayChoice, *, error: str = "", sent=True):
    return page(
        request,
        "installments/pay/code.html",
        {"token": token, "choice": choice, "error": error, "sent": sent},
        status=422 if error else 200,
    )


def _saved(request, link, token, choice: PayChoice):
    """A saved method: first the one-time code (sent when the choice comes
    without one), then the charge."""
    customer = link.plan.customer
    code = request.POST.get("code", "").strip()
    if not code:
        sent = sign_in_code_send(customer=customer, purpose=SignInCode.Purpose.PAY)
        return _code_page(request, token, choice, sent=sent)
    if not sign_in_code_check(
        customer=customer, code=code[:12], purpose=SignInCode.Purpose.PAY
    ):
        return _code_page(
            request,
            token,
            choice,
            error="That code is not right, or it has expired. Check the latest "
            "message we sent, or ask for a new code.",
        )
    return _charge(request, link, token, choice, method=choice.method)


def _card(request, link, token, choice: PayChoice):
    """A new card: to the processor's card page, back to `card_return`."""
    signed = signing.dumps(
        {"link": link.public_id, **_what(choice)}, salt=CARD_RETURN_SALT
    )
    callback = request.build_absolute_uri(
        reverse("pay-card-return", args=[token]) + f"?c={signed}"
    )
    try:
        # A card of the plan's side: a test plan's link saves a test card.
        setup = method_services.card_setup_initialize(
            customer=link.plan.customer,
            callback_url=callback,
            is_default=False,
            merchant=link.plan.merchant,
        )
    except DomainError as error:
        return _outcome(request, link, token, error=error.message)
    return see_other(setup.authorization_url)


def _offline(request, link, token, choice: PayChoice):
    """A bank transfer or USSD payment: to its page with the account or code."""
    plan = link.plan
    try:
        payment = plan_pay_offline(
            customer=plan.customer,
            plan=plan,
            channel=choice.how,
            bank=choice.bank,
            **_what(choice),
        )
    except DomainError as error:
        return _outcome(request, link, token, error=error.message)
    return see_other(reverse("pay-payment", args=[token, payment.public_id]))


def pay(request, link: PayLink, token: str, choice: PayChoice):
    """Carry out `choice` (checked against what the plan owes) for `link`."""
    if choice.how == How.SAVED:
        return _saved(request, link, token, choice)
    if choice.how == How.CARD:
        return _card(request, link, token, choice)
    return _offline(request, link, token, choice)


def card_return(request, link: PayLink, token: str):
    """Back from the processor's card page: save the card, then charge it for
    what was chosen before leaving (signed, for this link, within the hour)."""
    try:
        chosen = signing.loads(
            request.GET.get("c", ""), salt=CARD_RETURN_SALT, max_age=CARD_RETURN_MAX_AGE
        )
    except signing.BadSignature:
        raise Http404("This card return is not for this link.") from None
    if chosen.get("link") != link.public_id:
        raise Http404("This card return is not for this link.")
    plan = link.plan
    try:
        method = method_services.card_setup_verify(
            customer=plan.customer,
            reference=request.GET.get("reference", "")[:100],
            is_default=False,
        )
        paid = plan_pay_early(
            customer=plan.customer,
            plan=plan,
            method=method,
            installment_id=chosen.get("installment_id"),
            overdue=bool(chosen.get("overdue")),
        )
    except DomainError as error:
        return _outcome(request, link, token, error=error.message)
    return _outcome(request, link, token, plan=paid)


def payment_page(request, link: PayLink, token: str, payment_id: str):
    """One transfer or USSD payment of the link's plan: what to pay while it
    waits, then what became of it. Reloading checks again."""
    try:
        payment = early_payment_of_plan(link.plan, payment_id)
    except DomainError:
        raise Http404("This plan has no payment with this id.") from None
    return page(
        request,
        "installments/pay/payment.html",
        {
            "plan": link.plan,
            "token": token,
            "payment": payment,
            "status": early_payment_status(payment),
            "installments": early_payment_installments(payment),
        },
    )
