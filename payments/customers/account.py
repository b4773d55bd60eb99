"""The customer's sign-in pages under `/account/` (DESIGN section 11): sign in,
register, sign out. Mounted by installments/account_urls.py with the rest of
the customer's pages; the hosted checkout signs customers in with the same
forms (forms.py)."""

from django.contrib import messages
from django.http import HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.decorators import method_decorator
from django.views import View
from django.views.decorators.cache import never_cache
from django.views.decorators.debug import sensitive_post_parameters
from django.views.decorators.http import require_POST

from config.web.session_auth import see_other

from .forms import (
    CustomerRegisterForm,
    CustomerSignInForm,
    register_attempt,
    sign_in_attempt,
)
from .session import customer_sign_out, next_path, session_customer


@method_decorator([never_cache, sensitive_post_parameters("password")], "dispatch")
class _FormPage(View):
    """A page of one form that sends the customer on to `next` when done."""

    template_name = ""

    def _render(self, request, form, status=200):
        return TemplateResponse(
            request,
            self.template_name,
            {"form": form, "next": next_path(request) or ""},
            status=status,
        )


class SignInView(_FormPage):
    template_name = "account/sign_in.html"

    def get(self, request):
        if session_customer(request) is not None:
            return HttpResponseRedirect(
                next_path(request) or reverse("account:overview")
            )
        return self._render(request, CustomerSignInForm())

    def post(self, request):
        form = CustomerSignInForm(request.POST)
        customer, status = sign_in_attempt(request, form)
        if customer is None:
            return self._render(request, form, status=status)
        return see_other(next_path(request) or reverse("account:overview"))


class RegisterView(_FormPage):
    template_name = "account/register.html"

    def get(self, request):
        return self._render(request, CustomerRegisterForm())

    def post(self, request):
        form = CustomerRegisterForm(request.POST)
        customer, status = register_attempt(request, form)
        if customer is None:
            return self._render(request, form, status=status)
        messages.success(request, "Welcome! Your account is ready.")
        return see_other(next_path(request) or reverse("account:overview"))


@require_POST
def sign_out(request):
    customer_sign_out(request)
    messages.info(request, "You are signed out.")
    return see_other(reverse("account:login"))
