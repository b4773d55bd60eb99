"""How to perform each action of the audit log's ACTIONS, as the merchant, its
API key or staff would (tests/merchants/test_audit_log_actions.py walks them).

Each performer takes the `Setting` and returns the actor it expects on the row:
(kind, id)."""

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta

import pyotp
from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password
from django.test import Client
from rest_framework.test import APIClient

from installments.plans.rules import working_day_on_or_after
from merchants.models import Merchant
from merchants.team import services as team_services
from merchants.team.models import Invitation, Member
from merchants.team.selectors import owner_of
from merchants.tokens import password_reset_link
from webhooks.services import emit_event

from ..conftest import MerchantWithKey, bearer, merchant_jwt
from ..dashboards import sign_in
from ..factories import PASSWORD, MerchantFactory
from ..installments.conftest import make_active_plan
from ..installments.disputes import deposit_reference, dispute_open

NEW_PASSWORD = "Another-Sturdy-Passw0rd-7"
WEBHOOK_SECRET = "whsec_typed_by_the_merchant_0123456789"
GTBANK = "058"
PAYOUT_ACCOUNT_OK = "0123456780"
STAFF = "audit-staff"


@dataclass
class Setting:
    """A merchant with a live key, its dashboard, the API, and a staff client."""

    owner: MerchantWithKey
    dashboard: Client
    api: APIClient
    staff: Client
    # Secrets the actions handled: none may appear in any row.
    secrets: list[str]

    @property
    def merchant(self) -> Merchant:
        return Merchant.objects.get(pk=self.owner.merchant.pk)

    @property
    def jwt(self) -> dict:
        return bearer(merchant_jwt(self.merchant))

    @property
    def owner_member(self):
        return owner_of(self.merchant)

    def member(self) -> tuple[str, str]:
        return ("member", self.owner_member.public_id)


def setting_make(owner: MerchantWithKey) -> Setting:
    staff = Client()
    staff.force_login(
        get_user_model().objects.create_superuser(STAFF, "s@x.ng", "Staff-Passw0rd-1")
    )
    return Setting(
        owner=owner,
        dashboard=sign_in(Client(), owner.merchant),
        api=APIClient(),
        staff=staff,
        secrets=[owner.api_key, PASSWORD, NEW_PASSWORD, WEBHOOK_SECRET],
    )


def _ok(response, *statuses):
    assert response.status_code in statuses, response.content.decode()[:1000]
    return response


def _settings_url(s: Setting) -> str:
    return f"/api/v1/merchant/{s.merchant.public_id}/settings"


def signed_in(s):
    _ok(
        s.api.post(
            "/api/v1/auth/merchant/login",
            {"email": s.merchant.email, "password": PASSWORD},
            format="json",
        ),
        200,
    )
    return s.member()


def password_changed(s):
    _ok(
        s.dashboard.post(
            "/dashboard/password/",
            {
                "current_password": PASSWORD,
                "new_password": NEW_PASSWORD,
                "new_password_confirm": NEW_PASSWORD,
            },
        ),
        303,
    )
    return s.member()


def password_reset(s):
    """Through the link the reset e-mail carries."""
    client = Client()
    link = password_reset_link(s.owner_member)
    path = link[link.index("/dashboard/") :]
    s.secrets.append(path.rstrip("/").split("/")[-1])
    form_url = _ok(client.get(path), 302)["Location"]
    data = {"new_password": NEW_PASSWORD, "new_password_confirm": NEW_PASSWORD}
    _ok(client.post(form_url, data), 303)
    return s.member()


def settings_updated(s):
    body = {"min_installments": 2, "refund_policy": "Returns within 7 days."}
    _ok(s.api.patch(_settings_url(s), body, format="json", **s.jwt), 200)
    return s.member()


def webhook_url_changed(s):
    data = {"action": "webhook_url", "webhook_url": "https://shop.example.com/hooks"}
    _ok(s.dashboard.post("/dashboard/settings/", data), 303)
    return s.member()


def webhook_secret_changed(s):
    body = {"webhook_secret": WEBHOOK_SECRET}
    _ok(s.api.patch(_settings_url(s), body, format="json", **s.jwt), 200)
    return s.member()


def webhook_secret_regenerated(s):
    page = _ok(
        s.dashboard.post("/dashboard/settings/", {"action": "webhook_secret"}), 200
    )
    s.secrets.append(re.search(r"whsec_[A-Za-z0-9_-]{20,}", page.content.decode())[0])
    return s.member()


def _rotate(s, path_merchant: Merchant, headers: dict):
    url = f"/api/v1/merchant/{path_merchant.public_id}/rotate-api-key"
    response = _ok(s.api.post(url, {"name": "ci"}, format="json", **headers), 201)
    s.secrets.append(response.json()["data"]["apiKey"])


def api_key_rotated(s):
    """By the API key itself: the row names the key by its masked prefix."""
    key = s.merchant.api_keys.get(revoked_at__isnull=True)
    _rotate(s, s.merchant, s.owner.headers)
    return ("api_key", key.masked_prefix)


def api_key_created(s):
    """A merchant's first key, generated on the dashboard."""
    fresh = MerchantFactory(status=Merchant.Status.ACTIVE, api_access_enabled=True)
    client = sign_in(Client(), fresh)
    page = _ok(client.post("/dashboard/keys/", {"name": "first"}), 200)
    key = re.search(r"service_live_sk_[A-Za-z0-9_-]+", page.content.decode())
    s.secrets.append(key[0])
    s.owner = MerchantWithKey(merchant=fresh, api_key=s.owner.api_key)
    return ("member", owner_of(fresh).public_id)


def payout_account_changed(s):
    body = {"bank_code": GTBANK, "account_number": PAYOUT_ACCOUNT_OK}
    url = f"/api/v1/merchant/{s.merchant.public_id}/payout-account"
    _ok(s.api.put(url, body, format="json", **s.jwt), 200)
    return s.member()


def _admin_action(s, action: str, merchant: Merchant):
    data = {"action": action, "_selected_action": [merchant.pk], "confirm": "yes"}
    _ok(s.staff.post("/admin/merchants/merchant/", data), 302)
    return ("staff", STAFF)


def merchant_approved(s):
    merchant = MerchantFactory()
    s.owner = MerchantWithKey(merchant=merchant, api_key=s.owner.api_key)
    return _admin_action(s, "approve", merchant)


def merchant_suspended(s):
    return _admin_action(s, "suspend", s.merchant)


def merchant_api_access_disabled(s):
    return _admin_action(s, "disable_api_access", s.merchant)


def merchant_api_access_enabled(s):
    merchant = MerchantFactory(status=Merchant.Status.ACTIVE)
    s.owner = MerchantWithKey(merchant=merchant, api_key=s.owner.api_key)
    return _admin_action(s, "enable_api_access", merchant)


def _admin_change(s, **changes):
    from django.forms.models import model_to_dict

    merchant = s.merchant
    url = f"/admin/merchants/merchant/{merchant.pk}/change/"
    form = s.staff.get(url).context["adminform"].form
    data = {
        name: value
        for name, value in model_to_dict(merchant, fields=list(form.fields)).items()
        if value is not None
    }
    data["allowed_schedule_types"] = '["monthly"]'
    data.update(changes)
    for inline in ("members", "api_keys"):
        data.update({f"{inline}-TOTAL_FORMS": 0, f"{inline}-INITIAL_FORMS": 0})
    _ok(s.staff.post(url, data), 302)
    return ("staff", STAFF)


def merchant_rate_plan_changed(s):
    return _admin_change(s, rate_plan="production")


def merchant_updated_by_staff(s):
    return _admin_change(s, business_name="Renamed By Staff Ltd")


def _key_actor(s) -> tuple[str, str]:
    key = s.merchant.api_keys.get(revoked_at__isnull=True)
    return ("api_key", key.masked_prefix)


def _link(s, **body) -> str:
    body = {"merchant_id": s.merchant.public_id, "title": "Chair", **body}
    body.setdefault("amount", 4_500_000)
    body.setdefault("currency", "NGN")
    response = s.api.post(
        "/api/v1/payment-links", body, format="json", **s.owner.headers
    )
    return _ok(response, 201).json()["data"]["id"]


def _toggle(s, link_id: str, is_active: bool):
    url = f"/api/v1/payment-links/{link_id}/toggle"
    body = {"is_active": is_active}
    _ok(s.api.patch(url, body, format="json", **s.owner.headers), 200)


def payment_link_created(s):
    _link(s)
    return _key_actor(s)


def payment_link_deactivated(s):
    _toggle(s, _link(s), False)
    return _key_actor(s)


def payment_link_activated(s):
    link_id = _link(s)
    _toggle(s, link_id, False)
    _toggle(s, link_id, True)
    return _key_actor(s)


def plan_cancelled(s):
    setup = make_active_plan(owner=s.owner, email="audit@mail.example.com")
    url = f"/api/v1/payment-plans/{setup.plan.public_id}/cancel"
    body = {"reason": "Out of stock"}
    _ok(s.api.post(url, body, format="json", **s.owner.headers), 200)
    return _key_actor(s)


def refund_created(s):
    setup = make_active_plan(
        owner=s.owner, email="refunded@mail.example.com", order_reference="AUD-REF-1"
    )
    url = f"/api/v1/payment-plans/{setup.plan.public_id}/refunds"
    body = {"amount": 100_000, "reason": "Returned the chair"}
    _ok(s.api.post(url, body, format="json", **s.owner.headers), 201)
    return _key_actor(s)


def refund_refused_over_limit(s):
    """A support member's refund above their limit, refused at its review."""
    setup = make_active_plan(
        owner=s.owner, email="limited@mail.example.com", order_reference="AUD-REF-2"
    )
    support = Member.objects.create(
        merchant=s.merchant,
        email="support@shop.example.com",
        role="support",
        refund_limit=50_000,
        password=make_password(PASSWORD),
    )
    client = sign_in(Client(), support)
    url = f"/dashboard/plans/{setup.plan.public_id}/refund/"
    _ok(client.get(url, {"amount": "1,000", "reason": "Too much"}), 403)
    return ("member", support.public_id)


def _plan(s, n: int):
    return make_active_plan(
        owner=s.owner, email=f"plan{n}@mail.example.com", order_reference=f"AUD-{n}"
    ).plan


def plan_rescheduled(s):
    plan = _plan(s, 3)
    first = plan.installments.order_by("sequence").first()
    url = f"/api/v1/payment-plans/{plan.public_id}/installments/{first.public_id}"
    day = working_day_on_or_after(first.due_date + timedelta(days=1))
    body = {"due_date": day.isoformat()}
    _ok(s.api.post(f"{url}/reschedule", body, format="json", **s.owner.headers), 200)
    return _key_actor(s)


def _disputed(s, n: int):
    plan = _plan(s, n)
    return plan, dispute_open(deposit_reference(plan))


def dispute_answered(s):
    _, dispute = _disputed(s, 4)
    body = {"service_details": "A chair, delivered and signed for."}
    url = f"/api/v1/disputes/{dispute.public_id}/evidence"
    _ok(s.api.post(url, body, format="json", **s.owner.headers), 200)
    return _key_actor(s)


def _accepted(s, n: int):
    plan, dispute = _disputed(s, n)
    url = f"/api/v1/disputes/{dispute.public_id}/accept"
    _ok(s.api.post(url, {}, format="json", **s.owner.headers), 200)
    return plan


def dispute_accepted(s):
    _accepted(s, 5)
    return _key_actor(s)


def plan_resumed(s):
    plan = _accepted(s, 6)
    url = f"/api/v1/payment-plans/{plan.public_id}/resume"
    _ok(s.api.post(url, {}, format="json", **s.owner.headers), 200)
    return _key_actor(s)


def webhook_event_replayed(s):
    event = emit_event(merchant=s.merchant, event_type="goods.release", data={})
    url = f"/api/v1/webhooks/events/{event.public_id}/replay"
    s.api.post(url, {}, format="json", **s.jwt)
    return s.member()


JOINER = "joiner@shop.example.com"


def _invite(s, email: str = JOINER, role: str = "viewer"):
    body = {"action": "invite", "email": email, "role": role, "refund_limit": ""}
    _ok(s.dashboard.post("/dashboard/team/", body), 303)
    return Invitation.objects.get(email=email, accepted_at__isnull=True)


def member_invited(s):
    _invite(s)
    return s.member()


def member_invitation_withdrawn(s):
    invitation = _invite(s, "withdrawn@shop.example.com")
    body = {"action": "withdraw", "invitation_id": invitation.public_id}
    _ok(s.dashboard.post("/dashboard/team/", body), 303)
    return s.member()


def member_joined(s):
    """Through the link: the row names the member who joined."""
    _, token = team_services.member_invite(
        by=s.owner_member, email="joined@shop.example.com", role="support"
    )
    s.secrets.append(token)
    client = Client()
    data = {"new_password": NEW_PASSWORD, "new_password_confirm": NEW_PASSWORD}
    _ok(client.post(f"/dashboard/invitation/{token}/", data), 303)
    return ("member", Member.objects.get(email="joined@shop.example.com").public_id)


def _teammate(s, email: str) -> Member:
    return Member.objects.create(
        merchant=s.merchant, email=email, role="viewer", password="!"
    )


def member_role_changed(s):
    teammate = _teammate(s, "promoted@shop.example.com")
    body = {
        "action": "role",
        "member_id": teammate.public_id,
        "role": "support",
        "refund_limit": "5000",
    }
    _ok(s.dashboard.post("/dashboard/team/", body), 303)
    return s.member()


def member_removed(s):
    teammate = _teammate(s, "leaver@shop.example.com")
    body = {"action": "remove", "member_id": teammate.public_id}
    _ok(s.dashboard.post("/dashboard/team/", body), 303)
    return s.member()


SECURITY = "/dashboard/security/"


def _signed_in_again(s) -> Client:
    """A dashboard of the owner with whichever password it has now (a reset
    earlier in the walk signed its other browsers out)."""
    for password in (PASSWORD, NEW_PASSWORD):
        client = Client()
        signed = client.post(
            "/dashboard/login/", {"email": s.merchant.email, "password": password}
        )
        if signed.status_code == 303:
            return client
    raise AssertionError("the owner signs in with neither password")


def _enrol_on_the_page(s) -> list[str]:
    """Two-factor sign-in turned on through the Security page (which counts as
    a fresh code); its backup codes. A member who has it already (one merchant
    taken through every action) starts again from none."""
    member = s.owner_member
    if member.has_two_factor:
        member.backup_codes.all().delete()
        Member.objects.filter(pk=member.pk).update(
            totp_secret="", totp_enabled_at=None, totp_last_step=None
        )
    s.dashboard = _signed_in_again(s)
    _ok(s.dashboard.post(SECURITY, {"action": "start"}), 303)
    secret = s.owner_member.totp_secret
    s.secrets.append(secret)
    code = pyotp.TOTP(secret).now()
    page = _ok(s.dashboard.post(SECURITY, {"action": "confirm", "code": code}), 200)
    shown = re.search(
        r'<pre class="code-block" id="backup-codes">(.*?)</pre>',
        page.content.decode(),
        re.S,
    )
    codes = shown.group(1).split()
    assert len(set(codes)) == 10, codes
    s.secrets.extend(codes)
    return codes


def two_factor_enabled(s):
    _enrol_on_the_page(s)
    return s.member()


def two_factor_backup_codes_renewed(s):
    codes = _enrol_on_the_page(s)
    body = {"action": "regenerate", "code": codes[0]}
    _ok(s.dashboard.post(SECURITY, body), 200)
    return s.member()


def two_factor_disabled(s):
    codes = _enrol_on_the_page(s)
    _ok(s.dashboard.post(SECURITY, {"action": "disable", "code": codes[0]}), 303)
    return s.member()


def two_factor_team_required(s):
    _enrol_on_the_page(s)
    _ok(s.dashboard.post(SECURITY, {"action": "require", "required": "on"}), 303)
    return s.member()


PERFORMERS: dict[str, Callable[[Setting], tuple[str, str]]] = {
    "plan.rescheduled": plan_rescheduled,
    "plan.resumed": plan_resumed,
    "dispute.answered": dispute_answered,
    "dispute.accepted": dispute_accepted,
    "webhook.event_replayed": webhook_event_replayed,
    "refund.created": refund_created,
    "refund.refused_over_limit": refund_refused_over_limit,
    "two_factor.enabled": two_factor_enabled,
    "two_factor.backup_codes_renewed": two_factor_backup_codes_renewed,
    "two_factor.disabled": two_factor_disabled,
    "two_factor.team_required": two_factor_team_required,
    "member.invited": member_invited,
    "member.invitation_withdrawn": member_invitation_withdrawn,
    "member.joined": member_joined,
    "member.role_changed": member_role_changed,
    "member.removed": member_removed,
    "signed_in": signed_in,
    "password.changed": password_changed,
    "password.reset": password_reset,
    "settings.updated": settings_updated,
    "webhook.url_changed": webhook_url_changed,
    "webhook.secret_changed": webhook_secret_changed,
    "webhook.secret_regenerated": webhook_secret_regenerated,
    "api_key.created": api_key_created,
    "api_key.rotated": api_key_rotated,
    "payout_account.changed": payout_account_changed,
    "merchant.approved": merchant_approved,
    "merchant.suspended": merchant_suspended,
    "merchant.api_access_enabled": merchant_api_access_enabled,
    "merchant.api_access_disabled": merchant_api_access_disabled,
    "merchant.rate_plan_changed": merchant_rate_plan_changed,
    "merchant.updated_by_staff": merchant_updated_by_staff,
    "payment_link.created": payment_link_created,
    "payment_link.activated": payment_link_activated,
    "payment_link.deactivated": payment_link_deactivated,
    "plan.cancelled": plan_cancelled,
}
