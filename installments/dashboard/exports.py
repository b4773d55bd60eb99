"""CSV downloads of the plan page's lists (DESIGN section 16): the plans (with
the page's search and status filter) and the installments due in a date range.
Streamed (config.exports) and scoped to the signed-in merchant."""

from django.views import View

from config.exports import csv_response
from merchants.dashboard.auth import MerchantLoginRequiredMixin

from .. import exports
from ..selectors import installments_due
from . import selectors as dashboard_selectors
from .forms import InstallmentRangeForm, PlanSearchForm
from .views import plans_page


class PlansCsv(MerchantLoginRequiredMixin, View):
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

    def get(self, request):
        form = InstallmentRangeForm(request.GET)
        if not form.is_valid():
            return plans_page(request, form, status=400)
        return csv_response(
            exports.INSTALLMENTS,
            installments_due(
                request.merchant,
                due_from=form.cleaned_data["due_from"],
                due_to=form.cleaned_data["due_to"],
            ),
            merchant_id=request.merchant.public_id,
            output=exports.installment_row,
        )
