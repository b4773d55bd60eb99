"""The page of a reschedule (a `FormPage`), shared by the customer's account
and the merchant's dashboard: one form (which installment, what date),
validated with the API's serializer and moved by the API's service; a refusal
is shown on the page with the API's status and message, nothing changed."""

from abc import abstractmethod

from django.contrib import messages
from django.utils import timezone

from config.api.errors import DomainError
from config.web.forms import FormPage
from config.web.session_auth import see_other
from merchants.audit.actors import actor_from_request

from ..plans import selectors as plan_selectors
from ..plans.models import PaymentPlan
from .forms import RescheduleForm
from .rules import MERCHANT, NOTICE_DAYS, earliest_with_notice, long_date
from .selectors import customer_reschedules_left, installments_movable
from .services import installment_reschedule


class ReschedulePage(FormPage):
    """`by` (rules.CUSTOMER or MERCHANT) moves a date of the plan `plan_of`
    finds for the request (a 404 for anyone else's)."""

    by = ""

    @abstractmethod
    def plan_of(self, request, plan_id: str) -> PaymentPlan:
        """The caller's own plan of this id; Http404 for any other."""

    @abstractmethod
    def plan_url(self) -> str:
        """Where the page goes once the date moved."""

    def dispatch(self, request, plan_id):
        self.plan = self.plan_of(request, plan_id)
        return super().dispatch(request)

    def form(self, data=None):
        return RescheduleForm(installments_movable(self.plan, by=self.by), data)

    def submitted(self, request, form):
        try:
            reschedule = installment_reschedule(
                plan=self.plan,
                installment_id=form.cleaned_data["installment_id"],
                due_date=form.cleaned_data["due_date"],
                by=self.by,
                actor=actor_from_request(request) if self.by == MERCHANT else None,
            )
        except DomainError as error:
            form.add_error(None, error.message)
            return self.render(request, form, status=error.http_status)
        messages.success(
            request,
            f"Installment {reschedule.installment.sequence} is now due on "
            f"{long_date(reschedule.to_date)}.",
        )
        return see_other(self.plan_url())

    def render(self, request, form, status=200):
        response = super().render(request, form, status=status)
        plan = plan_selectors.plans_with_installments().get(pk=self.plan.pk)
        response.context_data.update(
            plan=plan,
            movable=bool(form.fields["installment_id"].choices),
            reschedules_left=customer_reschedules_left(plan),
            max_days=plan.merchant.reschedule_max_days,
            notice_days=NOTICE_DAYS,
            earliest=earliest_with_notice(timezone.localdate()),
        )
        return response
