"""Dashboard pages of `installments`: the merchant's payment plans (DESIGN §12),
their refund and cancellation (DESIGN §14).

A refund is typed (amount in naira, reason), previewed (`refund_preview`: which
installments are reduced, which collections give money back, nothing moves),
then confirmed: a POST with the `Idempotency-Key` made for it, so a double
click creates one refund. A cancellation has a page of its own that says what
stops before the merchant confirms.

HTTP in/out only: the services are the API's (`refund_create`,
`plan_merchant_cancel`); every query is scoped to the signed-in merchant, so
another merchant's plan id is a 404.
"""

from django.contrib import messages
from django.http import Http404
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import timezone
from django.views import View

from config.exports import csv_response
from config.web.pager import page_of, query_without
from config.web.session_auth import see_other
from merchants.audit.actors import actor_from_request
from merchants.dashboard.auth import MerchantLoginRequiredMixin

from ..agreements import selectors as agreement_selectors
from ..agreements.errors import AgreementNotFound
from ..cancellation.errors import PlanNotCancellable
from ..cancellation.services import (
    CANCELLABLE_PLAN_STATUSES,
    OPEN_INSTALLMENT_STATUSES,
    plan_merchant_cancel,
)
from ..plans import exports, selectors
from ..plans.errors import PlanNotFound
from ..plans.models import PaymentPlan
from ..refunds.selectors import amount_refund_pending
from . import selectors as dashboard_selectors
from .forms import (
    InstallmentRangeForm,
    PlanCancelForm,
    PlanSearchForm,
    RefundForm,
)

PLANS_PAGE_SIZE = 20
REFUNDS_PAGE_SIZE = 10


def plan_of(request, plan_id: str) -> PaymentPlan:
    try:
        return selectors.plan_of_merchant(request.merchant, plan_id)
    except PlanNotFound:
        raise Http404("No plan of yours has this id.") from None


def plan_url(plan: PaymentPlan, anchor: str = "") -> str:
    url = reverse("installments_dashboard:plan", kwargs={"plan_id": plan.public_id})
    return f"{url}#{anchor}" if anchor else url


def _with_amounts(plan):
    plan.paid = selectors.amount_paid(plan)
    plan.remaining = selectors.amount_remaining(plan)
    plan.next_due = selectors.next_due_installment(plan)
    plan.next_due_note = next_due_note(plan, plan.next_due)
    return plan


def next_due_note(plan, installment) -> str:
    """What the "next payment" is, when it is not simply coming: `uncollected`
    on a plan that is no longer collected (defaulted: its later installments
    keep their status with no next attempt), `overdue` when its due date (a
    Lagos date) has passed; "" otherwise."""
    if installment is None:
        return ""
    if plan.status != PaymentPlan.Status.ACTIVE:
        return "uncollected"
    if installment.due_date < timezone.localdate():
        return "overdue"
    return ""


class PlanListView(MerchantLoginRequiredMixin, View):
    permission = "view"

    def get(self, request):
        return plans_page(request, InstallmentRangeForm())


def plans_page(request, range_form: InstallmentRangeForm, status: int = 200):
    """The plan list with its filters, and the form of the installments' download."""
    form = PlanSearchForm(request.GET)
    form.is_valid()
    filters = form.filters()
    plans = dashboard_selectors.plans_search(request.merchant, **filters)
    page = page_of(request, plans, PLANS_PAGE_SIZE)
    for plan in page.object_list:
        _with_amounts(plan)
    return TemplateResponse(
        request,
        "installments/dashboard/plans.html",
        {
            "form": form,
            "range_form": range_form,
            "page": page,
            "pager_query": query_without(request),
            "filtered": any(filters.values()),
        },
        status=status,
    )


class PlanDetailView(MerchantLoginRequiredMixin, View):
    """The plan, its installments, its refunds (a page of them), its disputes
    and the forms that start a refund or a cancellation (or resume a plan
    waiting after a lost dispute)."""

    permission = "view"

    def get(self, request, plan_id):
        plan = plan_of(request, plan_id)
        refunds = page_of(
            request,
            dashboard_selectors.refunds_listed(plan),
            REFUNDS_PAGE_SIZE,
            "refunds_page",
        )
        return TemplateResponse(
            request,
            "installments/dashboard/plan.html",
            {
                "plan": _with_amounts(plan),
                "refund_pending": amount_refund_pending(plan),
                **dashboard_selectors.plan_history(plan),
                "refunds": refunds,
                "refunds_query": query_without(request, "refunds_page"),
                "refund_form": RefundForm(),
                "refundable": dashboard_selectors.refundable_now(plan),
                "cancellable": plan.status in CANCELLABLE_PLAN_STATUSES,
                "has_agreement": agreement_selectors.has_agreement(plan),
                "disputes": dashboard_selectors.plan_disputes(plan),
                "resumable": plan.status == PaymentPlan.Status.DISPUTED
                and not plan.open_disputes,
            },
        )


class PlanAgreementPdfView(MerchantLoginRequiredMixin, View):
    """The plan's agreement as it was stored (DESIGN section 18)."""

    permission = "view"

    def get(self, request, plan_id):
        plan = plan_of(request, plan_id)
        try:
            agreement = agreement_selectors.agreement_of(plan)
        except AgreementNotFound:
            raise Http404(AgreementNotFound.message) from None
        return agreement_selectors.pdf_response(agreement)


class PlanCancelView(MerchantLoginRequiredMixin, View):
    """GET: what cancelling stops, and the reason to give. POST: cancel, then
    303 to the plan page."""

    permission = "plans"

    template_name = "installments/dashboard/cancel.html"

    def get(self, request, plan_id):
        return self.render(request, plan_of(request, plan_id), PlanCancelForm())

    def post(self, request, plan_id):
        plan = plan_of(request, plan_id)
        form = PlanCancelForm(request.POST)
        if not form.is_valid():
            return self.render(request, plan, form, status=400)
        try:
            plan_merchant_cancel(
                plan=plan,
                reason=form.cleaned_data["reason"],
                actor=actor_from_request(request),
            )
        except PlanNotCancellable as error:
            plan.refresh_from_db(fields=["status"])
            if plan.status == PaymentPlan.Status.CANCELLED:
                # A second click, or another tab, got there first.
                messages.info(request, "This plan is cancelled.")
                return see_other(plan_url(plan))
            return self.render(
                request, plan, form, refusal=error.message, status=error.http_status
            )
        messages.success(
            request,
            f"Plan {plan.order_reference} cancelled: nothing more will be collected. "
            "Nothing was refunded; to give money back, refund it.",
        )
        return see_other(plan_url(plan))

    def render(self, request, plan, form, *, refusal="", status=200):
        unpaid = [
            installment
            for installment in plan.installments.all()
            if installment.status in OPEN_INSTALLMENT_STATUSES
        ]
        return TemplateResponse(
            request,
            self.template_name,
            {
                "plan": plan,
                "form": form,
                "cancellable": plan.status in CANCELLABLE_PLAN_STATUSES,
                "unpaid": unpaid,
                "unpaid_total": sum(installment.amount for installment in unpaid),
                "refusal": refusal,
            },
            status=status,
        )


# CSV downloads of the plan page's lists (DESIGN section 16): the plans with
# the page's filters, the installments due in a range; streamed
# (config.exports) and scoped to the signed-in merchant.


class PlansCsv(MerchantLoginRequiredMixin, View):
    permission = "exports"

    def get(self, request):
        form = PlanSearchForm(request.GET)
        form.is_valid()
        return csv_response(
            exports.PLANS,
            dashboard_selectors.plans_search(request.merchant, **form.filters()),
            merchant_id=request.merchant.public_id,
            output=exports.plan_row,
        )


class InstallmentsCsv(MerchantLoginRequiredMixin, View):
    """A range that is not one (a date that is no date, an end before the
    start) is shown on the plans page, next to its field (400)."""

    permission = "exports"

    def get(self, request):
        form = InstallmentRangeForm(request.GET)
        if not form.is_valid():
            return plans_page(request, form, status=400)
        return csv_response(
            exports.INSTALLMENTS,
            selectors.installments_due(
                request.merchant,
                due_from=form.cleaned_data["due_from"],
                due_to=form.cleaned_data["due_to"],
            ),
            merchant_id=request.merchant.public_id,
            output=exports.installment_row,
        )
