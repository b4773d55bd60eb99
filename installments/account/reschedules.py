"""The customer's "Move a due date" page under `/account/plans/<id>/reschedule/`
(DESIGN section 15): within their merchant's limits. Another customer's plan is
a 404."""

from django.http import Http404
from django.urls import reverse
from django.utils.decorators import method_decorator

from payments.customers.session import customer_login_required

from ..plans import selectors
from ..plans.errors import PlanNotFound
from ..reschedules.form_page import ReschedulePage
from ..reschedules.rules import CUSTOMER


@method_decorator(customer_login_required, "dispatch")
class PlanRescheduleView(ReschedulePage):
    by = CUSTOMER
    template_name = "installments/account/reschedule.html"

    def plan_of(self, request, plan_id):
        try:
            return selectors.plan_of_customer(request.customer, plan_id)
        except PlanNotFound:
            raise Http404("No plan of yours has this id.") from None

    def plan_url(self) -> str:
        return reverse("account:plan", args=[self.plan.public_id])
