"""The customer's pages under `/account/` (DESIGN section 11): signing in,
registering and signing out; plans with their next due dates; payment methods
(add a card by the processor's redirect, add a bank mandate step by step, set
default, delete).

HTTP in/out only: each view validates a form, calls one service, renders. Every
page but sign-in and registration reads and writes the signed-in customer
(`request.customer`) and nothing else; another customer's plan or method id is
a 404. Signing in and registering post the forms of payments.customers.forms,
which the hosted checkout posts too. The pages take a `next` path, so the hosted
checkout sends customers through the method flows and gets them back.
"""

from urllib.parse import urlencode

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

from config.api.errors import DomainError
from config.web.security_headers import allow_form_targets
from config.web.session_auth import see_other
from payments.customers import services as customer_services
from payments.customers.forms import (
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
from payments.methods import services as method_services
from payments.methods.models import BankMandate

from ..early.selectors import early_payment_choices
from ..plans import selectors
from ..plans.errors import PlanNotFound
from ..refunds.selectors import amount_refund_pending
from .forms import STEP_FORMS, STEP_SUBMITS, BankAccountForm
from .orders import order_for


def _next_or_overview(request) -> str:
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
        return see_other(_next_or_overview(request))

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
            return HttpResponseRedirect(_next_or_overview(request))
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
    context = {**_with_standing(plan), "pay": pay}
    context["refund_pending"] = amount_refund_pending(plan)
    return TemplateResponse(request, "installments/account/plan.html", context)


# --- payment methods -------------------------------------------------------------


def _with_next(url: str, next_url: str | None) -> str:
    return f"{url}?{urlencode({'next': next_url})}" if next_url else url


def _back(request) -> HttpResponseRedirect:
    return see_other(_next_or_overview(request))


def _method_change(request, method_id, change, done: str, *, refusals_shown: bool):
    """Apply `change` (a payment-method service) to one of the customer's own
    methods and go back. A method that is not theirs is a 404; another refusal
    is shown on the page when `refusals_shown`, else a 404 too."""
    try:
        method = change(customer=request.customer, public_id=method_id)
    except DomainError as error:
        if error.http_status == 404 or not refusals_shown:
            raise Http404(error.message) from None
        messages.error(request, error.message)
    else:
        messages.success(request, done.format(label=method.label))
    return _back(request)


@require_POST
@customer_login_required
def method_default(request, method_id):
    return _method_change(
        request,
        method_id,
        method_services.payment_method_set_default,
        "{label} is now your default method.",
        refusals_shown=True,
    )


@require_POST
@customer_login_required
def method_delete(request, method_id):
    return _method_change(
        request,
        method_id,
        method_services.payment_method_delete,
        "{label} was removed.",
        refusals_shown=False,
    )


@require_POST
@customer_login_required
def card_start(request):
    """Start the card redirect flow: to the processor's page, then back to
    `card_return` with the reference."""
    callback = request.build_absolute_uri(
        _with_next(reverse("account:card-return"), next_path(request))
    )
    try:
        setup = method_services.card_setup_initialize(
            customer=request.customer,
            callback_url=callback,
            is_default=request.POST.get("is_default") == "on",
        )
    except DomainError as error:
        messages.error(request, error.message)
        return _back(request)
    return see_other(setup.authorization_url)


@customer_login_required
def card_return(request):
    reference = request.GET.get("reference", "")
    try:
        method = method_services.card_setup_verify(
            customer=request.customer, reference=reference[:100]
        )
    except DomainError as error:
        messages.error(request, f"The card was not saved. {error.message}")
    else:
        messages.success(request, f"{method.label} is saved.")
        next_url = next_path(request)
        if next_url:
            return see_other(_with_method(next_url, method.public_id))
    return _back(request)


def _with_method(url: str, method_id: str) -> str:
    """The checkout pre-selects the method just added."""
    separator = "&" if "?" in url else "?"
    return f"{url}{separator}{urlencode({'method': method_id})}"


@method_decorator(customer_login_required, "dispatch")
class BankStartView(View):
    template_name = "installments/account/bank_start.html"

    def get(self, request):
        return self._render(request, BankAccountForm())

    def post(self, request):
        form = BankAccountForm(request.POST)
        if not form.is_valid():
            return self._render(request, form, status=400)
        try:
            outcome = method_services.mandate_initiate(
                customer=request.customer,
                bank_code=form.cleaned_data["bank_code"],
                account_number=form.cleaned_data["account_number"],
                is_default=request.POST.get("is_default") == "on",
            )
        except DomainError as error:
            form.add_error(None, error.message)
            return self._render(request, form, status=error.http_status)
        return _after_step(request, outcome)

    def _render(self, request, form, status=200):
        return TemplateResponse(
            request,
            self.template_name,
            {"form": form, "next": next_path(request) or "", "order": _order(request)},
            status=status,
        )


def _order(request):
    return order_for(next_path(request))


def _after_step(request, outcome) -> HttpResponseRedirect:
    if outcome.next_action == "success":
        method = outcome.payment_method
        messages.success(request, f"{method.label} is saved.")
        next_url = next_path(request)
        if next_url:
            return see_other(_with_method(next_url, method.public_id))
        return _back(request)
    step_url = reverse("account:bank-step", args=[outcome.mandate.reference])
    return see_other(_with_next(step_url, next_path(request)))


@method_decorator(customer_login_required, "dispatch")
class BankStepView(View):
    """One step of a bank mandate: the form the bank asked for (OTP, date of
    birth, phone) or, for `open_url`, the bank's page and a "done" button."""

    template_name = "installments/account/bank_step.html"

    def dispatch(self, request, reference):
        self.mandate = BankMandate.objects.filter(
            reference=reference[:100], customer=request.customer
        ).first()
        if self.mandate is None:
            raise Http404("You have no bank account being added at this address.")
        return super().dispatch(request, reference)

    def get(self, request, reference):
        form_class = STEP_FORMS.get(self.mandate.next_action)
        return self._render(request, form_class() if form_class else None)

    def post(self, request, reference):
        action = self.mandate.next_action
        details = method_services.MandateDetails()
        form_class = STEP_FORMS.get(action)
        form = form_class(request.POST) if form_class else None
        if form is not None and not form.is_valid():
            return self._render(request, form, status=400)
        try:
            if action in STEP_SUBMITS:
                service, field = STEP_SUBMITS[action]
                outcome = getattr(method_services, service)(
                    customer=request.customer,
                    reference=reference,
                    details=details,
                    **{field: form.cleaned_data[field]},
                )
            else:
                outcome = method_services.mandate_verify(
                    customer=request.customer, reference=reference, details=details
                )
        except DomainError as error:
            self.mandate.refresh_from_db()
            if form is None or self.mandate.next_action != action:
                form = (
                    STEP_FORMS[self.mandate.next_action]()
                    if self.mandate.next_action in STEP_FORMS
                    else None
                )
            return self._render(
                request, form, error=error.message, status=error.http_status
            )
        return _after_step(request, outcome)

    def _render(self, request, form, *, error="", status=200):
        return TemplateResponse(
            request,
            self.template_name,
            {
                "mandate": self.mandate,
                "form": form,
                "error": error,
                "next": next_path(request) or "",
                "order": _order(request),
            },
            status=status,
        )


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
            customer_services.customer_sms_phone_set(customer=customer, sms_phone="")
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
            customer=customer, sms_phone=form.cleaned_data["sms_phone"]
        )
        messages.success(
            request,
            f"Reminders and receipts will be texted to {customer.sms_phone}.",
        )
        return see_other(reverse("account:profile"))
