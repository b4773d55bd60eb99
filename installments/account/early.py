"""The plan page's "Pay this installment now" and "Pay off ₦X now" (DESIGN
section 14): one form posts the installment (or `payoff`) and the method chosen;
validated with the API's serializer, paid by the API's service, answered on the
plan page with what happened. Another customer's plan is a 404."""

from django.contrib import messages
from django.http import Http404
from django.urls import reverse
from django.views.decorators.http import require_POST

from config.api.errors import DomainError
from config.web.session_auth import see_other
from payments.customers.session import customer_login_required

from ..early.serializers import PayEarlyInput
from ..early.services import plan_pay_early
from ..plans import selectors
from ..plans.errors import PlanNotFound


def _body(post) -> dict:
    body = {
        name: post[name]
        for name in ("installment_id", "payment_method_id")
        if post.get(name)
    }
    if post.get("payoff"):
        body = {"payoff": True, **body}
        body.pop("installment_id", None)
    return body


def _paid(plan, installment_id: str | None) -> str:
    if installment_id is None:
        return "Your plan is paid off. Thank you!"
    sequence = next(
        row.sequence
        for row in plan.installments.all()
        if row.public_id == installment_id
    )
    return f"Installment {sequence} is paid. Thank you!"


@require_POST
@customer_login_required
def plan_pay(request, plan_id):
    try:
        plan = selectors.plan_of_customer(request.customer, plan_id)
    except PlanNotFound:
        raise Http404("No plan of yours has this id.") from None
    back = see_other(reverse("account:plan", args=[plan.public_id]))
    body = PayEarlyInput(data=_body(request.POST))
    if not body.is_valid():
        messages.error(request, "Choose an installment to pay, or pay off the plan.")
        return back
    data = body.validated_data
    installment_id = None if data.get("payoff") else data["installment_id"]
    try:
        paid = plan_pay_early(
            customer=request.customer,
            plan=plan,
            installment_id=installment_id,
            payment_method_id=data.get("payment_method_id"),
        )
    except DomainError as error:
        messages.error(request, error.message)
    else:
        messages.success(request, _paid(paid, installment_id))
    return back
