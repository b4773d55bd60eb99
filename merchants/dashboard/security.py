"""The Security page (DESIGN section 20, docs/two-factor.md): set up two-factor
sign-in (a QR code drawn inline, the secret as text, a first code to confirm),
the backup codes shown once, new backup codes, turning it off; an owner's
switch requiring it of every member; and the page where a change that needs a
fresh code gets one. HTTP in/out only: the rules are in
merchants.team.two_factor."""

from django.contrib import messages
from django.http import HttpResponseBadRequest
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.decorators import method_decorator
from django.utils.safestring import mark_safe
from django.views import View
from django.views.decorators.debug import sensitive_post_parameters

from config.api.errors import DomainError
from config.api.login_guard import client_ip
from config.web.session_auth import see_other

from ..audit.actors import actor_from_request
from ..team import two_factor
from ..team.roles import may
from .auth import MerchantLoginRequiredMixin, record_code, safe_next_url
from .sign_in import CodeForm


def _url(name: str = "security") -> str:
    return reverse(f"merchants_dashboard:{name}")


@method_decorator(sensitive_post_parameters("code"), name="dispatch")
class SecurityView(MerchantLoginRequiredMixin, View):
    """GET: the member's two-factor status. POST `action`: start, confirm,
    regenerate, disable, or (owners) require."""

    permission = "view"
    enrolment_page = True
    template_name = "merchants/dashboard/security.html"

    def needs_fresh_code(self, request) -> bool:
        # The team's switch is a change of every member's sign-in.
        return request.method == "POST" and request.POST.get("action") == "require"

    def get(self, request):
        return self.render(request)

    def post(self, request):
        handler = {
            "start": self.start,
            "confirm": self.confirm,
            "regenerate": self.regenerate,
            "disable": self.disable,
            "require": self.require,
        }.get(request.POST.get("action"))
        if handler is None:
            return HttpResponseBadRequest("Unknown security action.")
        try:
            return handler(request)
        except DomainError as error:
            form = CodeForm(request.POST)
            form.is_valid()
            form.add_error(None, error.message)
            status = error.http_status if error.http_status in (403, 429) else 400
            return self.render(request, form=form, status=status)

    def _code(self, request):
        form = CodeForm(request.POST)
        return form, (form.cleaned_data["code"] if form.is_valid() else None)

    def start(self, request):
        request.member = two_factor.enrol_start(member=request.member)
        return see_other(_url())

    def confirm(self, request):
        form, code = self._code(request)
        if code is None:
            return self.render(request, form=form, status=400)
        member, codes = two_factor.enrol_confirm(
            member=request.member, code=code, actor=actor_from_request(request)
        )
        request.member = member
        record_code(request)
        messages.success(request, "Two-factor sign-in is on.")
        # Shown in this response only; only their hashes are stored.
        return self.render(request, backup_codes=codes)

    def regenerate(self, request):
        form, code = self._code(request)
        if code is None:
            return self.render(request, form=form, status=400)
        codes = two_factor.backup_codes_regenerate(
            member=request.member,
            code=code,
            client_ip=client_ip(request),
            actor=actor_from_request(request),
        )
        record_code(request)
        return self.render(request, backup_codes=codes)

    def disable(self, request):
        form, code = self._code(request)
        if code is None:
            return self.render(request, form=form, status=400)
        two_factor.disable(
            member=request.member,
            code=code,
            client_ip=client_ip(request),
            actor=actor_from_request(request),
        )
        messages.success(request, "Two-factor sign-in is off.")
        return see_other(_url())

    def require(self, request):
        required = request.POST.get("required") == "on"
        two_factor.require_two_factor_set(
            by=request.member, required=required, actor=actor_from_request(request)
        )
        messages.success(
            request,
            "Every member of your team now signs in with a code."
            if required
            else "Members choose for themselves whether to use two-factor sign-in.",
        )
        return see_other(_url())

    def render(self, request, *, form=None, backup_codes=None, status=200):
        member = request.member
        context = {
            "form": form or CodeForm(),
            "backup_codes": backup_codes,
            "can_require": may(member.role, "ownership"),
            "required": member.merchant.require_two_factor,
        }
        if member.has_two_factor:
            context["codes_left"] = two_factor.backup_codes_left(member)
        elif member.totp_secret:
            uri = two_factor.provisioning_uri(member)
            # Drawn by the qrcode library from the secret: no typed text in it.
            context["qr_svg"] = mark_safe(two_factor.qr_code_svg(uri))  # noqa: S308
            context["secret"] = member.totp_secret
        return TemplateResponse(request, self.template_name, context, status=status)


@method_decorator(sensitive_post_parameters("code"), name="dispatch")
class CodeConfirmView(MerchantLoginRequiredMixin, View):
    """A fresh code for a change that needs one: then back to `next`."""

    permission = "view"
    template_name = "merchants/dashboard/fresh_code.html"

    def get(self, request):
        return self.render(request, CodeForm())

    def post(self, request):
        form = CodeForm(request.POST)
        if not form.is_valid():
            return self.render(request, form, status=400)
        try:
            two_factor.code_check(
                member=request.member,
                code=form.cleaned_data["code"],
                client_ip=client_ip(request),
            )
        except DomainError as error:
            form.add_error(None, error.message)
            return self.render(request, form, status=error.http_status)
        record_code(request)
        messages.success(request, "Code confirmed: make your change now.")
        return see_other(self._next(request) or _url("overview"))

    def _next(self, request):
        return safe_next_url(
            request, request.POST.get("next") or request.GET.get("next")
        )

    def render(self, request, form, status=200):
        return TemplateResponse(
            request,
            self.template_name,
            {"form": form, "next": self._next(request) or ""},
            status=status,
        )
