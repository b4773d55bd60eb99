"""Dashboard pages of `merchants` for a member's own password: changing it, and
the "forgot your password" e-mail and link."""

from django.contrib import messages
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.decorators import method_decorator
from django.views import View
from django.views.decorators.cache import never_cache
from django.views.decorators.debug import sensitive_post_parameters

from config.web.forms import FormPage
from config.web.session_auth import see_other

from .. import services
from ..audit.actors import actor_from_request, member_actor
from ..team import selectors as team_selectors
from ..team import services as team_services
from ..tokens import password_reset_tokens
from .auth import MerchantLoginRequiredMixin, keep_session_after_password_change
from .forms import PasswordChangeForm, PasswordResetRequestForm, SetPasswordForm


def _url(name: str, **kwargs) -> str:
    return reverse(f"merchants_dashboard:{name}", kwargs=kwargs)


@method_decorator(
    sensitive_post_parameters(
        "current_password", "new_password", "new_password_confirm"
    ),
    name="dispatch",
)
class PasswordChangeView(MerchantLoginRequiredMixin, FormPage):
    permission = "view"

    template_name = "merchants/dashboard/password_change.html"

    def form(self, data=None):
        return PasswordChangeForm(self.request.member, data)

    def submitted(self, request, form):
        member = team_services.member_set_password(
            member=request.member,
            password=form.cleaned_data["new_password"],
            actor=actor_from_request(request),
        )
        keep_session_after_password_change(request, member)
        messages.success(
            request,
            "Password changed. Every other browser signed in to your dashboard has "
            "been signed out.",
        )
        return see_other(_url("overview"))


@method_decorator(never_cache, name="dispatch")
class PasswordResetRequestView(FormPage):
    template_name = "merchants/dashboard/password_reset_request.html"

    def form(self, data=None):
        return PasswordResetRequestForm(data)

    def submitted(self, request, form):
        services.merchant_password_reset_send(email=form.cleaned_data["email"])
        return see_other(_url("password-reset-sent"))


class PasswordResetSentView(View):
    def get(self, request):
        return TemplateResponse(
            request, "merchants/dashboard/password_reset_sent.html", {}
        )


RESET_SESSION_TOKEN = "_dashboard_password_reset_token"
RESET_URL_TOKEN = "set-password"


@method_decorator(
    [never_cache, sensitive_post_parameters("new_password", "new_password_confirm")],
    name="dispatch",
)
class PasswordResetConfirmView(FormPage):
    """Django's pattern: the token from the e-mail moves into the session and the
    browser is sent to a URL without it, so it cannot leak through the Referer
    header of anything the page loads."""

    template_name = "merchants/dashboard/password_reset_confirm.html"

    def dispatch(self, request, member_id, token):
        member = team_selectors.member_by_public_id(member_id)
        if token == RESET_URL_TOKEN:
            token = request.session.get(RESET_SESSION_TOKEN, "")
            valid = member is not None and password_reset_tokens.check_token(
                member, token
            )
        else:
            if member is not None and password_reset_tokens.check_token(member, token):
                request.session[RESET_SESSION_TOKEN] = token
                return redirect(
                    _url(
                        "password-reset-confirm",
                        member_id=member_id,
                        token=RESET_URL_TOKEN,
                    )
                )
            valid = False
        if not valid:
            return TemplateResponse(
                request, self.template_name, {"invalid": True}, status=400
            )
        self.member = member
        return super().dispatch(request)

    def form(self, data=None):
        return SetPasswordForm(self.member, data)

    def submitted(self, request, form):
        team_services.member_set_password(
            member=self.member,
            password=form.cleaned_data["new_password"],
            actor=member_actor(self.member, request),
            reset=True,
        )
        request.session.pop(RESET_SESSION_TOKEN, None)
        messages.success(request, "Your password is reset. Sign in with it now.")
        return see_other(_url("login"))
