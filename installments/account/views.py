"""The customer's pages under `/account/` (DESIGN section 11): signing in,
registering and signing out; plans with their next due dates; the profile. The
payment method pages are in methods.py, paying early in early.py, moving a due
date in reschedules.py.

HTTP in/out only: each view validates a form, calls one service, renders. Every
page but sign-in and registration reads and writes the signed-in customer
(`request.customer`) and nothing else; another customer's plan or method id is
a 404. Signing in and registering post the forms of payments.customers.forms,
which the hosted checkout posts too. The pages take a `next` path, so the hosted
checkout sends customers through the method flows and gets them back.
"""

from django.conf import settings
from django.contrib import messages
from django.http import Http404, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.decorators import method_decorator
from django.views import View
from django.views.decorators.cache import never_cache
from django.views.decorators.debug import sensitive_post_parameters
from django.views.decorators.http import require_POST

from config.web.security_headers import allow_form_targets
from config.web.session_auth import see_other
from payments.customers import services as customer_services
from payments.customers.forms import (
    PROFILE_SMS_SOURCE,
    CustomerRegisterForm,
    CustomerSignInForm,
    SmsPhoneForm,
)
from payments.customers.selectors import sms_number_suggested
from payments.customers.session import (
    customer_login_required,
    customer_sign_out,
    next_path,
    session_customer,
)
from payments.gateway.selectors import processor_page_origins
from payments.methods import selectors as method_selectors

from ..agreements import selectors as agreement_selectors
from ..agreements.errors import AgreementNotFound
from ..early.selectors import early_payment_choices
from ..plans import selectors
from ..plans.errors import PlanNotFound
from ..plans.models import PaymentPlan
from ..refunds.selectors import amount_refund_pending


def next_or_overview(request) -> str:
    """Where a page sends the customer when done: `next`, else their account."""
    return next_path(request) or reverse("account:overview")


# --- signing in ------------------------------------------------------------------


@method_decorator([never_cache, sensitive_post_parameters("password")], "dispatch")
class SignInFormView(View):
    """A page of one sign-in form (payments.customers.forms) that sends the
    customer on to `next` when it has signed them in."""

    form_class = CustomerSignInForm
    template_name = "installments/account/sign_in.html"
    welcome = ""

    def get(self, request):
        return self._render(request, self.form_class())

    def post(self, request):
        form = self.form_class(request.POST)
        customer, status = form.submit(request)
        if customer is None:
            return self._render(request, form, status=status)
        if self.welcome:
            messages.success(request, self.welcome)
        return see_other(next_or_overview(request))

    def _render(self, request, form, status=200):
        return TemplateResponse(
            request,
            self.template_name,
            {"form": form, "next": next_path(request) or ""},
            status=status,
        )


class SignInView(SignInFormView):
    def get(self, request):
        if session_customer(request) is not None:
            return HttpResponseRedirect(next_or_overview(request))
        return super().get(request)


class RegisterView(SignInFormView):
    form_class = CustomerRegisterForm
    template_name = "installments/account/register.html"
    welcome = "Welcome! Your account is ready."


@require_POST
def sign_out(request):
    customer_sign_out(request)
    messages.info(request, "You are signed out.")
    return see_other(reverse("account:login"))


# --- plans ---------------------------------------------------------------------


def _with_standing(plan) -> dict:
    """A plan with what is paid, what remains and the installment due next."""
    return {
        "plan": plan,
        "paid": selectors.amount_paid(plan),
        "remaining": selectors.amount_remaining(plan),
        "next_due": selectors.next_due_installment(plan),
    }


@customer_login_required
def overview(request):
    customer = request.customer
    plans = list(selectors.plans_of_customer(customer))
    allow_form_targets(request, processor_page_origins())
    return TemplateResponse(
        request,
        "installments/account/overview.html",
        {
            "plans": [_with_standing(plan) for plan in plans],
            "methods": method_selectors.payment_methods_listed(customer),
        },
    )


@customer_login_required
def plan_detail(request, plan_id):
    try:
        plan = selectors.plan_of_customer(request.customer, plan_id)
    except PlanNotFound:
        raise Http404("No plan of yours has this id.") from None
    pay = early_payment_choices(request.customer, plan)
    return TemplateResponse(
        request,
        "installments/account/plan.html",
        {
            **_with_standing(plan),
            "pay": pay,
            # A manual plan (DESIGN section 17) is collected automatically only
            # from a method its customer added since; without one, they pay.
            "pays_by_hand": plan.collection == PaymentPlan.Collection.MANUAL
            and not method_selectors.payment_methods_chargeable(
                request.customer, livemode=plan.merchant.livemode
            ),
            "refund_pending": amount_refund_pending(plan),
            "has_agreement": agreement_selectors.has_agreement(plan),
        },
    )


@customer_login_required
def plan_agreement_pdf(request, plan_id):
    """The plan's agreement as it was stored (DESIGN section 18)."""
    try:
        plan = selectors.plan_of_customer(request.customer, plan_id)
        return agreement_selectors.pdf_response(agreement_selectors.agreement_of(plan))
    except (PlanNotFound, AgreementNotFound):
        raise Http404("No agreement of yours has this plan id.") from None


# --- profile: the mobile number for texts -----------------------------------------


@method_decorator([never_cache, customer_login_required], "dispatch")
class ProfileView(View):
    template_name = "installments/account/profile.html"

    def _render(self, request, form, status=200):
        return TemplateResponse(
            request,
            self.template_name,
            {"form": form, "reminder_days": settings.REMINDER_DAYS_BEFORE},
            status=status,
        )

    def get(self, request):
        initial = {"sms_phone": sms_number_suggested(request.customer)}
        return self._render(request, SmsPhoneForm(initial=initial))

    def post(self, request):
        customer = request.customer
        if "remove" in request.POST:
            customer_services.customer_sms_phone_set(
                customer=customer, sms_phone="", source=PROFILE_SMS_SOURCE
            )
            messages.success(
                request,
                "Your mobile number was removed: reminders and receipts come by "
                "e-mail only.",
            )
            return see_other(reverse("account:profile"))
        form = SmsPhoneForm(request.POST)
        if not form.is_valid():
            return self._render(request, form, status=400)
        customer_services.customer_sms_phone_set(
            customer=customer,
            sms_phone=form.cleaned_data["sms_phone"],
            source=PROFILE_SMS_SOURCE,
        )
        messages.success(
            request,
            f"Reminders and receipts will be texted to {customer.sms_phone}.",
        )
        return see_other(reverse("account:profile"))
