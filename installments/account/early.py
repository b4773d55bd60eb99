"""The plan page's "Pay this installment now" and "Pay off ₦X now" (DESIGN
sections 14 and 17): one form posts the installment (or `payoff`) and what to
pay with: a saved method, a bank transfer or a USSD code; validated with the
API's serializer, paid by the API's services. A saved method's outcome is
shown on the plan page; a transfer or USSD payment opens its own page (the
account or code, the amount, the time left, its status, checked again on
reload). Another customer's plan is a 404."""

from django.contrib import messages
from django.http import Http404
from django.template.response import TemplateResponse
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from config.api.errors import DomainError
from config.web.session_auth import see_other
from payments.customers.session import customer_login_required
from payments.gateway.processors.base import PayChannel

from ..early.models import EarlyPayment
from ..early.selectors import early_payment_installments, early_payment_of_plan
from ..early.serializers import PayEarlyInput, early_payment_status
from ..early.services import plan_pay_as_asked
from ..plans import selectors
from ..plans.errors import PlanNotFound

USSD_PREFIX = "ussd:"


def _pay_with(value: str) -> dict:
    """The form's "Pay with": a saved method's id, `bank_transfer`, or
    `ussd:<code>`, as the API's fields."""
    if value == PayChannel.BANK_TRANSFER:
        return {"channel": PayChannel.BANK_TRANSFER}
    if value.startswith(USSD_PREFIX):
        return {"channel": PayChannel.USSD, "bank": value[len(USSD_PREFIX) :]}
    return {"payment_method_id": value} if value else {}


def _body(post) -> dict:
    body = (
        {"installment_id": post["installment_id"]} if post.get("installment_id") else {}
    )
    body.update(_pay_with(post.get("pay_with") or post.get("payment_method_id", "")))
    if post.get("payoff"):
        body = {"payoff": True, **body}
        body.pop("installment_id", None)
    return body


def _paid(plan, data: dict) -> str:
    if data.get("payoff"):
        return "Your plan is paid off. Thank you!"
    sequence = next(
        row.sequence
        for row in plan.installments.all()
        if row.public_id == data["installment_id"]
    )
    return f"Installment {sequence} is paid. Thank you!"


def _plan_of(request, plan_id):
    try:
        return selectors.plan_of_customer(request.customer, plan_id)
    except PlanNotFound:
        raise Http404("No plan of yours has this id.") from None


@require_POST
@customer_login_required
def plan_pay(request, plan_id):
    plan = _plan_of(request, plan_id)
    back = see_other(reverse("account:plan", args=[plan.public_id]))
    body = PayEarlyInput(data=_body(request.POST))
    if not body.is_valid():
        messages.error(request, "Choose an installment to pay, or pay off the plan.")
        return back
    data = body.validated_data
    try:
        paid = plan_pay_as_asked(customer=request.customer, plan=plan, data=data)
    except DomainError as error:
        messages.error(request, error.message)
        return back
    if isinstance(paid, EarlyPayment):
        return see_other(
            reverse("account:plan-payment", args=[plan.public_id, paid.public_id])
        )
    messages.success(request, _paid(paid, data))
    return back


@require_GET
@never_cache
@customer_login_required
def plan_payment(request, plan_id, payment_id):
    """One payment of the plan: a transfer's account or a USSD code while it
    waits, then what became of it. Reloading the page checks again."""
    plan = _plan_of(request, plan_id)
    try:
        payment = early_payment_of_plan(plan, payment_id)
    except DomainError:
        raise Http404("This plan has no payment with this id.") from None
    return TemplateResponse(
        request,
        "installments/account/payment.html",
        {
            "plan": plan,
            "payment": payment,
            "status": early_payment_status(payment),
            "installments": early_payment_installments(payment),
        },
    )
