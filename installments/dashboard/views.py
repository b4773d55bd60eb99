"""Dashboard pages of `installments`: the merchant's payment plans (DESIGN §12).

HTTP in/out only; every query is scoped to the signed-in merchant, so another
merchant's plan id is a 404.
"""

from django.template.response import TemplateResponse
from django.views import View

from config.web.pager import page_of, query_without
from merchants.dashboard.auth import MerchantLoginRequiredMixin

from .. import selectors
from ..cancellation import CANCELLABLE_PLAN_STATUSES
from . import selectors as dashboard_selectors
from .forms import PlanSearchForm, RefundForm
from .refunds import plan_of

PLANS_PAGE_SIZE = 20
REFUNDS_PAGE_SIZE = 10


def _with_amounts(plan):
    plan.paid = selectors.amount_paid(plan)
    plan.remaining = selectors.amount_remaining(plan)
    plan.next_due = selectors.next_due_installment(plan)
    return plan


class PlanListView(MerchantLoginRequiredMixin, View):
    def get(self, request):
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
                "page": page,
                "pager_query": query_without(request),
                "filtered": any(filters.values()),
            },
        )


class PlanDetailView(MerchantLoginRequiredMixin, View):
    """The plan, its installments, its refunds (a page of them) and the forms
    that start a refund or a cancellation."""

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
                **dashboard_selectors.plan_history(plan),
                "refunds": refunds,
                "refunds_query": query_without(request, "refunds_page"),
                "refund_form": RefundForm(),
                "refundable": dashboard_selectors.refundable_now(plan),
                "cancellable": plan.status in CANCELLABLE_PLAN_STATUSES,
            },
        )
