"""The customer's ways in without a password to remember (DESIGN section 17):
a password-reset link by e-mail, and signing in with a one-time code sent by
e-mail and SMS. Every answer is the same whether or not the address has an
account; both requests are throttled (config.api.login_guard.check_ask_allowed)
and signing in by code has the password sign-in's throttles."""

from abc import abstractmethod
from urllib.parse import urlencode

from django.contrib import messages
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.decorators import method_decorator
from django.views import View
from django.views.decorators.cache import never_cache
from django.views.decorators.debug import sensitive_post_parameters

from config.api.errors import RateLimited
from config.api.login_guard import check_ask_allowed, client_ip
from config.web.forms import FormPage, SetPasswordForm
from config.web.session_auth import safe_next_url, see_other
from payments.customers import selectors as customer_selectors
from payments.customers import services as customer_services
from payments.customers.forms import CustomerCodeSignInForm, CustomerEmailForm
from payments.customers.resets import password_reset_token_valid
from payments.customers.session import next_path

from ..signin import services
from .views import SignInFormView


class _AskByEmailPage(FormPage):
    """A page asking for the customer's address to send something to (a reset
    link, a sign-in code): the request is counted first (a 429 with the reason
    on the form), then `send` answers. `next` is kept through the page."""

    what = ""  # the kind of request check_ask_allowed counts

    def form(self, data=None):
        return CustomerEmailForm(data)

    def render(self, request, form, status=200):
        return TemplateResponse(
            request,
            self.template_name,
            {"form": form, "next": next_path(request) or ""},
            status=status,
        )

    def submitted(self, request, form):
        try:
            check_ask_allowed(
                kind="customer",
                what=self.what,
                email=form.cleaned_data["email"],
                client_ip=client_ip(request),
            )
        except RateLimited as error:
            form.add_error(None, error.message)
            return self.render(request, form, status=error.http_status)
        return self.send(request, form.cleaned_data["email"])

    @abstractmethod
    def send(self, request, email: str):
        """Send what was asked for to `email`, then redirect (303)."""


# --- password reset ----------------------------------------------------------------


# Where the customer was going (`next`, e.g. the hosted checkout) when they
# asked for a reset link: kept in their session, so that when they open the
# link in the same browser, setting the password sends them on to sign in and
# back there. The e-mail's link itself carries nothing but the token.
RESET_SESSION_NEXT = "_customer_password_reset_next"


@method_decorator(never_cache, "dispatch")
class PasswordResetRequestView(_AskByEmailPage):
    template_name = "installments/account/password_reset_request.html"
    what = "password-reset"

    def send(self, request, email):
        services.password_reset_send(email=email)
        if after := next_path(request):
            request.session[RESET_SESSION_NEXT] = after
        return see_other(_with_next(request, reverse("account:password-reset-sent")))


class PasswordResetSentView(View):
    def get(self, request):
        return TemplateResponse(
            request,
            "installments/account/password_reset_sent.html",
            {"next": next_path(request) or ""},
        )


RESET_SESSION_TOKEN = "_customer_password_reset_token"
RESET_URL_TOKEN = "set-password"


@method_decorator(
    [never_cache, sensitive_post_parameters("new_password", "new_password_confirm")],
    name="dispatch",
)
class PasswordResetConfirmView(FormPage):
    """The merchant dashboard's pattern: the token from the e-mail moves into
    the session and the browser is sent to a URL without it, so it cannot leak
    through the Referer header of anything the page loads."""

    template_name = "installments/account/password_reset_confirm.html"

    def dispatch(self, request, customer_id, token):
        customer = customer_selectors.customer_by_public_id(customer_id)
        if token != RESET_URL_TOKEN:
            if password_reset_token_valid(customer, token):
                request.session[RESET_SESSION_TOKEN] = token
                return see_other(
                    reverse(
                        "account:password-reset-confirm",
                        kwargs={"customer_id": customer_id, "token": RESET_URL_TOKEN},
                    )
                )
        elif password_reset_token_valid(
            customer, request.session.get(RESET_SESSION_TOKEN, "")
        ):
            self.customer = customer
            return super().dispatch(request)
        return TemplateResponse(
            request, self.template_name, {"invalid": True}, status=400
        )

    def form(self, data=None):
        return SetPasswordForm(self.customer, data)

    def submitted(self, request, form):
        customer_services.customer_set_password(
            customer=self.customer, password=form.cleaned_data["new_password"]
        )
        request.session.pop(RESET_SESSION_TOKEN, None)
        after = safe_next_url(request, request.session.pop(RESET_SESSION_NEXT, None))
        messages.success(request, "Your password is reset. Sign in with it now.")
        login = reverse("account:login")
        return see_other(f"{login}?{urlencode({'next': after})}" if after else login)


# --- signing in with a one-time code --------------------------------------------------

CODE_SESSION_EMAIL = "_customer_code_email"


def _with_next(request, url: str) -> str:
    after = next_path(request)
    return f"{url}?{urlencode({'next': after})}" if after else url


@method_decorator(never_cache, "dispatch")
class CodeRequestView(_AskByEmailPage):
    """Asks for the address; a code goes to the account's e-mail and mobile
    number on file, if there is an account (the answer is the same)."""

    template_name = "installments/account/code_request.html"
    what = "sign-in-code"

    def send(self, request, email):
        customer = customer_selectors.customer_by_email(email)
        if customer is not None:
            services.sign_in_code_send(customer=customer)
        request.session[CODE_SESSION_EMAIL] = email
        return see_other(_with_next(request, reverse("account:login-code-enter")))


@method_decorator([never_cache, sensitive_post_parameters("code")], name="dispatch")
class CodeSignInView(SignInFormView):
    """The code, and the address again (filled in from the step before): signs
    in exactly as the password sign-in does."""

    form_class = CustomerCodeSignInForm
    template_name = "installments/account/code_sign_in.html"

    def get(self, request):
        form = self.form_class(
            initial={"email": request.session.get(CODE_SESSION_EMAIL, "")}
        )
        return self._render(request, form)

    def post(self, request):
        response = super().post(request)
        if response.status_code == 303:
            request.session.pop(CODE_SESSION_EMAIL, None)
        return response
