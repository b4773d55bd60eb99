"""The dashboard's "Reschedule" page of a plan (DESIGN section 15): the merchant
moves any unpaid installment, without the customers' limits. Another
merchant's plan is a 404."""

from merchants.dashboard.auth import MerchantLoginRequiredMixin

from ..reschedules.form_page import ReschedulePage
from ..reschedules.rules import MERCHANT
from .views import plan_of, plan_url


class PlanRescheduleView(MerchantLoginRequiredMixin, ReschedulePage):
    permission = "plans"

    by = MERCHANT
    template_name = "installments/dashboard/reschedule.html"

    def plan_of(self, request, plan_id):
        return plan_of(request, plan_id)

    def plan_url(self) -> str:
        return plan_url(self.plan, "installments-h")
