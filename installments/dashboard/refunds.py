"""The plan's refund page: a refund typed in naira, reviewed (where the money
would go, nothing moves), then confirmed with its own Idempotency-Key (DESIGN
section 14); a support member's refunds are held to their limit (section 20)."""

from django.contrib import messages
from django.template.response import TemplateResponse
from django.views import View

from config.money import format_kobo
from config.web.session_auth import see_other
from merchants.audit.actors import actor_from_request
from merchants.dashboard.auth import MerchantLoginRequiredMixin
from merchants.errors import RefundOverLimit
from merchants.team.services import check_refund_limit

from ..plans.errors import PlanBusy
from ..plans.models import PaymentPlan
from ..refunds.errors import RefundExceedsRefundable
from ..refunds.services import refund_create
from . import selectors as dashboard_selectors
from .forms import RefundConfirmForm, RefundForm
from .views import plan_of, plan_url

STALE_CONFIRMATION = (
    "This confirmation could not be read: enter the refund again and confirm it."
)


def refund_refusal(plan: PaymentPlan, error) -> str:
    """What a refused refund says to a person (the API's 422 counts in kobo)."""
    if isinstance(error, RefundExceedsRefundable):
        refundable = dashboard_selectors.refundable_now(plan)
        return (
            "This is more than is left to refund on this plan: at most "
            f"{format_kobo(refundable, plan.currency)} now."
        )
    return error.message


class PlanRefundView(MerchantLoginRequiredMixin, View):
    """GET: the refund form; with `amount` and `reason`, the allocation to
    confirm. POST: the confirmed refund, then 303 to the plan page."""

    permission = "plans"

    template_name = "installments/dashboard/refund.html"

    def get(self, request, plan_id):
        plan = plan_of(request, plan_id)
        if "amount" not in request.GET and "reason" not in request.GET:
            return self.render(request, plan, RefundForm())
        form = RefundForm(request.GET)
        if not form.is_valid():
            return self.render(request, plan, form, status=400)
        amount, reason = form.cleaned_data["amount"], form.cleaned_data["reason"]
        try:
            check_refund_limit(
                request.member, amount, plan=plan, actor=actor_from_request(request)
            )
            preview = dashboard_selectors.refund_preview_lines(plan, amount)
        except (RefundExceedsRefundable, PlanBusy, RefundOverLimit) as error:
            return self.render(
                request,
                plan,
                form,
                refusal=refund_refusal(plan, error),
                status=error.http_status,
            )
        key = dashboard_selectors.refund_confirmation_key(plan, amount, reason)
        # Hidden fields without ids: the form to change the refund has its own.
        confirm = RefundConfirmForm(
            initial={"amount": amount, "reason": reason, "key": key}, auto_id=False
        )
        return self.render(request, plan, form, preview=preview, confirm=confirm)

    def post(self, request, plan_id):
        plan = plan_of(request, plan_id)
        confirm = RefundConfirmForm(request.POST)
        if not confirm.is_valid():
            return self.render(
                request, plan, RefundForm(), refusal=STALE_CONFIRMATION, status=400
            )
        amount, reason = confirm.cleaned_data["amount"], confirm.cleaned_data["reason"]
        try:
            check_refund_limit(
                request.member, amount, plan=plan, actor=actor_from_request(request)
            )
            answer = refund_create(
                plan=plan,
                amount=amount,
                reason=reason,
                idempotency_key=confirm.cleaned_data["key"],
                actor=actor_from_request(request),
            )
        except (RefundExceedsRefundable, PlanBusy, RefundOverLimit) as error:
            form = RefundForm(
                initial={"amount": format_kobo(amount, plan.currency), "reason": reason}
            )
            return self.render(
                request,
                plan,
                form,
                refusal=refund_refusal(plan, error),
                status=error.http_status,
            )
        messages.success(request, refund_created_message(answer))
        return see_other(plan_url(plan, "refunds"))

    def render(self, request, plan, form, *, status=200, **context):
        return TemplateResponse(
            request,
            self.template_name,
            {
                "plan": plan,
                "form": form,
                "refundable": dashboard_selectors.refundable_now(plan),
                **context,
            },
            status=status,
        )


def refund_created_message(answer) -> str:
    refund = answer.refund
    if answer.replayed:
        return (
            f"Refund {refund.public_id} was already created by this confirmation: "
            "nothing more was refunded."
        )
    text = (
        f"Refund {refund.public_id} of "
        f"{format_kobo(refund.amount_requested, refund.currency)} created"
    )
    sentences = []
    if refund.amount_returned:
        returned = format_kobo(refund.amount_returned, refund.currency)
        pending = refund.amount_pending
        if pending == refund.amount_returned:
            sentences.append(f"{returned} is on its way back to the customer")
        elif pending:
            sentences.append(f"{returned} is paid back or on its way to the customer")
        else:
            sentences.append(f"{returned} was paid back to the customer")
    if refund.amount_failed:
        failed = format_kobo(refund.amount_failed, refund.currency)
        sentences.append(
            f"{failed} could not be paid back: it is back in your wallet and can "
            "be refunded again"
        )
    if not sentences:
        return f"{text}: taken off the unpaid installments, no money moved."
    if refund.amount_failed and refund.amount_reduced:
        reduced = format_kobo(refund.amount_reduced, refund.currency)
        sentences.insert(0, f"{reduced} taken off the unpaid installments")
    return f"{text}: {'; '.join(sentences)}."
