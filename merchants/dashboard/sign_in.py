"""Dashboard sign-in: the password, then for a member with two-factor sign-in
the code (DESIGN section 20, docs/two-factor.md).

Between the two steps the session holds a pending sign-in (the signed
`mfa_token` of merchants.team.two_factor: the member and its credential
version, for 5 minutes), not a signed-in member. HTTP in/out only."""

from django import forms
from django.contrib import messages
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.decorators import method_decorator
from django.views.decorators.cache import never_cache
from django.views.decorators.debug import sensitive_post_parameters

from config.api.errors import InvalidCredentials, RateLimited
from config.api.login_guard import client_ip
from config.text import NoControlCharacters
from config.web.forms import FormPage, sign_in_credentials
from config.web.session_auth import see_other

from .. import services
from ..audit.actors import member_actor
from ..audit.services import audit_record
from ..team import two_factor
from .auth import dashboard_sign_in, safe_next_url, session_merchant
from .forms import SignInForm

SESSION_PENDING_KEY = "_dashboard_pending_sign_in"
SESSION_PENDING_NEXT_KEY = "_dashboard_pending_next"


def _url(name: str) -> str:
    return reverse(f"merchants_dashboard:{name}")


class CodeForm(forms.Form):
    code = forms.CharField(
        label="Code",
        max_length=two_factor.CODE_MAX_LENGTH,
        validators=[NoControlCharacters()],
        help_text="The 6-digit code of your authenticator app, or a backup code.",
        widget=forms.TextInput(
            attrs={"autocomplete": "one-time-code", "autofocus": True}
        ),
    )


class SignedOutPage(FormPage):
    """A page for merchants not signed in yet: a signed-in one goes to the
    overview."""

    def get(self, request):
        if session_merchant(request) is not None:
            return redirect(_url("overview"))
        return super().get(request)


def _signed_in(request, member, *, code_verified: bool) -> None:
    """Sign the member in, and record it (the sign-in services have no
    transaction of their own: the row follows them)."""
    dashboard_sign_in(request, member, code_verified=code_verified)
    audit_record(
        merchant=member.merchant,
        action="signed_in",
        actor=member_actor(member, request),
        object_type="dashboard",
    )


def _refused(page, request, form, error):
    form.add_error(None, error.message)
    status = 429 if isinstance(error, RateLimited) else 400
    response = page.render(request, form, status=status)
    for name, value in error.headers.items():
        response[name] = value
    return response


@method_decorator([never_cache, sensitive_post_parameters("password")], name="dispatch")
class SignInView(SignedOutPage):
    template_name = "merchants/dashboard/sign_in.html"

    def form(self, data=None):
        return SignInForm(data)

    def submitted(self, request, form):
        try:
            member = services.merchant_login(**sign_in_credentials(request, form))
        except (InvalidCredentials, RateLimited) as error:
            return _refused(self, request, form, error)
        next_url = safe_next_url(request, request.POST.get("next"))
        if member.has_two_factor:
            # Not signed in yet: the code step signs in.
            request.session.cycle_key()
            request.session[SESSION_PENDING_KEY] = two_factor.mfa_token_issue(member)
            request.session[SESSION_PENDING_NEXT_KEY] = next_url or ""
            return see_other(_url("login-code"))
        _signed_in(request, member, code_verified=False)
        if two_factor.enrolment_required(member):
            return see_other(_url("security"))
        return see_other(next_url or _url("overview"))

    def render(self, request, form, status=200):
        next_url = safe_next_url(
            request, request.POST.get("next") or request.GET.get("next")
        )
        return TemplateResponse(
            request,
            self.template_name,
            {"form": form, "next": next_url or ""},
            status=status,
        )


@method_decorator([never_cache, sensitive_post_parameters("code")], name="dispatch")
class SignInCodeView(SignedOutPage):
    """The second step: the code (or a backup code) of the member whose
    password was right in the last 5 minutes."""

    template_name = "merchants/dashboard/sign_in_code.html"

    def dispatch(self, request, *args, **kwargs):
        token = request.session.get(SESSION_PENDING_KEY, "")
        if session_merchant(request) is None and (
            two_factor.mfa_token_member(token) is None
        ):
            request.session.pop(SESSION_PENDING_KEY, None)
            messages.info(request, "Your sign-in expired: enter your password again.")
            return redirect(_url("login"))
        return super().dispatch(request, *args, **kwargs)

    def form(self, data=None):
        return CodeForm(data)

    def submitted(self, request, form):
        try:
            member = two_factor.sign_in_code(
                mfa_token=request.session.get(SESSION_PENDING_KEY, ""),
                code=form.cleaned_data["code"],
                client_ip=client_ip(request),
            )
        except (InvalidCredentials, RateLimited) as error:
            return _refused(self, request, form, error)
        next_url = request.session.get(SESSION_PENDING_NEXT_KEY) or _url("overview")
        _signed_in(request, member, code_verified=True)
        request.session.pop(SESSION_PENDING_KEY, None)
        request.session.pop(SESSION_PENDING_NEXT_KEY, None)
        return see_other(next_url)
