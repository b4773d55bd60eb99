"""The Team page (DESIGN section 20): the members and open invitations, inviting
someone, changing a member's role or refund limit, removing a member; and the
page where an invitee joins. HTTP in/out only: the rules are in
merchants.team.services."""

from django import forms
from django.contrib import messages
from django.http import Http404
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.decorators import method_decorator
from django.views import View
from django.views.decorators.cache import never_cache
from django.views.decorators.debug import sensitive_post_parameters

from config.api.errors import DomainError
from config.money import format_kobo, naira_to_kobo
from config.web.forms import FormPage, SetPasswordForm
from config.web.pager import page_of
from config.web.session_auth import see_other

from ..audit.actors import actor_from_request
from ..team import selectors, services
from ..team.models import Invitation, Member
from ..team.roles import GRANTS, LIMITED_REFUNDS, PERMISSIONS, Role
from .auth import MerchantLoginRequiredMixin, dashboard_sign_in, session_member

MEMBERS_PAGE_SIZE = 25
MAX_REFUND_LIMIT = 1_000_000_000  # kobo: the largest order amount


def _url(name: str = "team", **kwargs) -> str:
    return reverse(f"merchants_dashboard:{name}", kwargs=kwargs)


class RoleForm(forms.Form):
    """A role and, for support, a refund limit in naira."""

    role = forms.ChoiceField(label="Role", choices=Role.choices)
    refund_limit = forms.CharField(
        label="Refund limit (₦, support only)",
        required=False,
        help_text="The most one refund by this member may give back, e.g. 20000. "
        "Empty: no refunds.",
        widget=forms.TextInput(attrs={"inputmode": "decimal", "autocomplete": "off"}),
    )

    def clean_refund_limit(self):
        text = self.cleaned_data["refund_limit"].strip()
        if not text:
            return None
        kobo = naira_to_kobo(text)
        if kobo is None or not 0 <= kobo <= MAX_REFUND_LIMIT:
            raise forms.ValidationError(
                "Enter the limit in naira, from 0 to "
                f"{format_kobo(MAX_REFUND_LIMIT)}, e.g. 20000."
            )
        return kobo


class InviteForm(RoleForm):
    email = forms.EmailField(label="E-mail address", max_length=254)

    field_order = ["email", "role", "refund_limit"]


class TeamView(MerchantLoginRequiredMixin, View):
    """GET: the members, open invitations and the invitation form. POST:
    `action` invite, role, remove or withdraw."""

    permission = "members"
    fresh_code_for_changes = True
    template_name = "merchants/dashboard/team.html"

    def get(self, request):
        return self.render(request, InviteForm())

    def post(self, request):
        action = request.POST.get("action")
        handler = {
            "invite": self.invite,
            "role": self.change_role,
            "remove": self.remove,
            "withdraw": self.withdraw,
        }.get(action)
        if handler is None:
            return self.render(request, InviteForm(), status=400)
        try:
            return handler(request)
        except DomainError as error:
            return self.render(
                request, InviteForm(), refusal=error.message, status=error.http_status
            )

    def invite(self, request):
        form = InviteForm(request.POST)
        if not form.is_valid():
            return self.render(request, form, status=400)
        invitation, _ = services.member_invite(
            by=request.member,
            email=form.cleaned_data["email"],
            role=form.cleaned_data["role"],
            refund_limit=form.cleaned_data["refund_limit"],
            actor=actor_from_request(request),
        )
        messages.success(
            request,
            f"Invitation e-mailed to {invitation.email}: the link works once, for "
            "72 hours.",
        )
        return see_other(_url())

    def _member(self, request) -> Member:
        member = (
            selectors.members_of(request.account)
            .filter(public_id=request.POST.get("member_id", ""))
            .first()
        )
        if member is None:
            raise Http404("No member of your team has this id.")
        return member

    def change_role(self, request):
        member = self._member(request)
        form = RoleForm(request.POST)
        if not form.is_valid():
            return self.render(
                request, InviteForm(), role_form=form, role_member=member, status=400
            )
        services.member_change_role(
            by=request.member,
            member=member,
            role=form.cleaned_data["role"],
            refund_limit=form.cleaned_data["refund_limit"],
            actor=actor_from_request(request),
        )
        messages.success(
            request,
            f"{member.email} is now {form.cleaned_data['role']}; they were signed "
            "out everywhere and sign in again with their new role.",
        )
        return see_other(_url())

    def remove(self, request):
        member = self._member(request)
        services.member_remove(
            by=request.member, member=member, actor=actor_from_request(request)
        )
        messages.success(
            request, f"{member.email} was removed and signed out everywhere."
        )
        if member.pk == request.member.pk:
            return see_other(_url("login"))
        return see_other(_url())

    def withdraw(self, request):
        invitation = (
            selectors.open_invitations_of(request.account)
            .filter(public_id=request.POST.get("invitation_id", ""))
            .first()
        )
        if invitation is None:
            raise Http404("No open invitation of your team has this id.")
        services.invitation_revoke(
            by=request.member,
            invitation=invitation,
            actor=actor_from_request(request),
        )
        messages.success(request, f"The invitation to {invitation.email} is withdrawn.")
        return see_other(_url())

    def render(self, request, form, *, status=200, **context):
        members = page_of(
            request,
            selectors.members_of(request.account).order_by("created_at", "id"),
            MEMBERS_PAGE_SIZE,
        )
        for member in members:
            limit = member.refund_limit
            member.limit_naira = "" if limit is None else format_kobo(limit)
        return TemplateResponse(
            request,
            self.template_name,
            {
                "form": form,
                "page": members,
                "invitations": selectors.open_invitations_of(request.account),
                "roles": Role.choices,
                "limited": LIMITED_REFUNDS,
                "table": permission_table(),
                **context,
            },
            status=status,
        )


def permission_table() -> list[dict]:
    """The permission table as the page shows it: one row a permission."""
    return [
        {
            "permission": name,
            "text": text,
            "roles": [name in GRANTS[role] for role in Role.values],
        }
        for name, text in PERMISSIONS.items()
    ]


@method_decorator(
    [never_cache, sensitive_post_parameters("new_password", "new_password_confirm")],
    name="dispatch",
)
class InvitationView(FormPage):
    """The invitee chooses a password and joins; then they are signed in. The
    token stays in the URL only until the page is posted (it works once)."""

    template_name = "merchants/dashboard/invitation.html"

    def dispatch(self, request, token):
        self.invitation: Invitation | None = services.invitation_by_token(token)
        if self.invitation is None:
            return TemplateResponse(
                request, self.template_name, {"invalid": True}, status=400
            )
        self.token = token
        return super().dispatch(request)

    def form(self, data=None):
        return SetPasswordForm(Member(email=self.invitation.email), data)

    def submitted(self, request, form):
        try:
            member = services.invitation_accept(
                token=self.token, password=form.cleaned_data["new_password"]
            )
        except DomainError as error:
            form.add_error(None, error.message)
            return self.render(request, form, status=error.http_status)
        if session_member(request) is not None:
            request.session.flush()
        dashboard_sign_in(request, member)
        messages.success(
            request,
            f"Welcome: you joined {member.merchant.business_name} as {member.role}.",
        )
        return see_other(_url("overview"))

    def render(self, request, form, status=200):
        return TemplateResponse(
            request,
            self.template_name,
            {"form": form, "invitation": self.invitation},
            status=status,
        )
