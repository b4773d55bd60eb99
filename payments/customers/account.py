"""The customer's sign-in pages under `/account/` (DESIGN section 11): sign in,
register, sign out. Mounted by installments/account_urls.py with the rest of
the customer's pages; the hosted checkout signs customers in with the same
forms (forms.py)."""

from django.contrib import messages
from django.http import HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.decorators import method_decorator
from django.views.decorators.cache import never_cache
from django.views.decorators.debug import sensitive_post_parameters
from django.views.decorators.http import require_POST

from config.web.forms import FormPage
from config.web.session_auth import see_other

from .forms import (
    CustomerRegisterForm,
    CustomerSignInForm,
    register_attempt,
    sign_in_attempt,
)
from .session import customer_sign_out, next_path, session_customer


def _onward(request) -> str:
    return next_path(request) or reverse("account:overview")


@method_decorator([never_cache, sensitive_post_parameters("password")], "dispatch")
class _FormPage(FormPage):
    """A page of one form that signs the customer in (`attempt`, of forms.py)
    and sends them on to `next`."""

    form_class = None
    attempt = None
    welcome = ""

    def form(self, data=None):
        return self.form_class(data)

    def submitted(self, request, form):
        customer, status = self.attempt(request, form)
        if customer is None:
            return self.render(request, form, status=status)
        if self.welcome:
            messages.success(request, self.welcome)
        return see_other(_onward(request))

    def render(self, request, form, status=200):
        return TemplateResponse(
            request,
            self.template_name,
            {"form": form, "next": next_path(request) or ""},
            status=status,
        )


class SignInView(_FormPage):
    template_name = "account/sign_in.html"
    form_class = CustomerSignInForm
    attempt = staticmethod(sign_in_attempt)

    def get(self, request):
        if session_customer(request) is not None:
            return HttpResponseRedirect(_onward(request))
        return super().get(request)


class RegisterView(_FormPage):
    template_name = "account/register.html"
    form_class = CustomerRegisterForm
    attempt = staticmethod(register_attempt)
    welcome = "Welcome! Your account is ready."


@require_POST
def sign_out(request):
    customer_sign_out(request)
    messages.info(request, "You are signed out.")
    return see_other(reverse("account:login"))
