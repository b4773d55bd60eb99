"""The customer's payment method pages under `/account/methods/` (DESIGN
section 11): add a card by the processor's redirect, add a bank mandate step by
step, set the default, delete.

HTTP in/out only, as the other pages of `/account/` (views.py): each view
validates a form, calls one service of payments.methods, renders or redirects.
Another customer's method or mandate is a 404. The pages take a `next` path, so
the hosted checkout sends customers through the method flows and gets them back
with the new method selected; the bank pages keep its order in view (orders.py).
"""

from urllib.parse import urlencode

from django.contrib import messages
from django.http import Http404, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.decorators import method_decorator
from django.views import View
from django.views.decorators.http import require_POST

from config.api.errors import DomainError
from config.web.session_auth import see_other
from payments.customers.session import customer_login_required, next_path
from payments.gateway.processors import processor_of
from payments.gateway.services import VERIFICATION_AMOUNT
from payments.methods import services as method_services
from payments.methods.models import BankMandate
from payments.methods.terms import MANDATE_TERMS, MandateConsent

from .forms import STEP_FORMS, STEP_SUBMITS, BankAccountForm
from .orders import order_for
from .views import next_or_overview


def _with_next(url: str, next_url: str | None) -> str:
    return f"{url}?{urlencode({'next': next_url})}" if next_url else url


def _back(request) -> HttpResponseRedirect:
    return see_other(next_or_overview(request))


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
            merchant=_side_merchant(request),
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
        return self._render(request, BankAccountForm(processor=_processor(request)))

    def post(self, request):
        form = BankAccountForm(request.POST, processor=_processor(request))
        if not form.is_valid():
            return self._render(request, form, status=400)
        try:
            outcome = method_services.mandate_initiate(
                customer=request.customer,
                bank_code=form.cleaned_data["bank_code"],
                account_number=form.cleaned_data["account_number"],
                is_default=request.POST.get("is_default") == "on",
                consent=MandateConsent.of(request),
                merchant=_side_merchant(request),
            )
        except DomainError as error:
            form.add_error(None, error.message)
            return self._render(request, form, status=error.http_status)
        return _after_step(request, outcome)

    def _render(self, request, form, status=200):
        return TemplateResponse(
            request,
            self.template_name,
            {
                "form": form,
                "next": next_path(request) or "",
                "order": _order(request),
                # The verification charge the mandate makes (and gives back at once).
                "verification_charge": VERIFICATION_AMOUNT,
                "mandate_terms": MANDATE_TERMS,
            },
            status=status,
        )


def _order(request):
    return order_for(next_path(request))


def _side_merchant(request):
    """The merchant of the checkout the customer adds a method from (`next`):
    the method is of its side (a test checkout's is a test method, made at the
    sandbox). None from the customer's own pages: a live method."""
    order = _order(request)
    return getattr(order, "merchant", None)


def _processor(request):
    merchant = _side_merchant(request)
    return None if merchant is None else processor_of(merchant)


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
