"""Two-factor sign-in (DESIGN section 20): enrolment, the code step on the
dashboard and the API, replays, backup codes, the lockout, the owners'
switch, fresh codes and the mfa_token's lifetime. The clock moves with
time_machine; codes are computed from the secret with pyotp."""

from datetime import timedelta

import pyotp
import pytest
import time_machine
from django.conf import settings
from django.utils import timezone

from merchants.team import two_factor
from merchants.team.models import Member
from merchants.team.selectors import owner_of

from ..conftest import merchant_jwt
from ..dashboards import sign_in
from ..factories import PASSWORD, MemberFactory

pytestmark = pytest.mark.django_db

LOGIN = "/api/v1/auth/merchant/login"
LOGIN_MFA = "/api/v1/auth/merchant/login/mfa"


def code_of(member: Member, at=None) -> str:
    member.refresh_from_db()
    return pyotp.TOTP(member.totp_secret).at(at or timezone.now())


@pytest.fixture
def traveller():
    with time_machine.travel(timezone.now(), tick=False) as clock:
        yield clock


@pytest.fixture
def owner(merchant_active):
    return owner_of(merchant_active)


def enrol(member: Member) -> list[str]:
    two_factor.enrol_start(member=member)
    _, codes = two_factor.enrol_confirm(member=member, code=code_of(member))
    member.refresh_from_db()
    return codes


def next_step(clock, steps: int = 1) -> None:
    clock.shift(timedelta(seconds=30 * steps))


def test_enrolment_on_the_security_page_shows_an_inline_qr_code_then_backup_codes(
    client, owner, traveller
):
    sign_in(client, owner)
    client.post("/dashboard/security/", {"action": "start"})

    page = client.get("/dashboard/security/")
    body = page.content.decode()
    owner.refresh_from_db()
    assert page.status_code == 200
    assert "<svg" in body and owner.totp_secret in body
    assert "img-src 'self' data:" in page["Content-Security-Policy"]
    assert not owner.has_two_factor

    confirmed = client.post(
        "/dashboard/security/", {"action": "confirm", "code": code_of(owner)}
    )

    owner.refresh_from_db()
    assert confirmed.status_code == 200
    assert owner.has_two_factor
    assert owner.backup_codes.count() == 10
    assert confirmed.content.decode().count("-") >= 10
    assert 'data-testid="backup-codes"' in confirmed.content.decode()


def test_dashboard_sign_in_with_two_factor_asks_for_the_code_before_signing_in(
    client, owner, traveller
):
    enrol(owner)
    next_step(traveller)

    response = client.post(
        "/dashboard/login/", {"email": owner.email, "password": PASSWORD}
    )
    assert response.status_code == 303
    assert response["Location"] == "/dashboard/login/code/"
    assert client.get("/dashboard/").status_code == 302  # not signed in yet

    wrong = client.post("/dashboard/login/code/", {"code": "000000"})
    assert wrong.status_code == 400

    signed = client.post("/dashboard/login/code/", {"code": code_of(owner)})
    assert signed.status_code == 303
    assert client.get("/dashboard/").status_code == 200


def test_the_pending_dashboard_sign_in_expires_after_5_minutes(
    client, owner, traveller
):
    enrol(owner)
    client.post("/dashboard/login/", {"email": owner.email, "password": PASSWORD})
    traveller.shift(timedelta(minutes=5, seconds=1))

    response = client.post("/dashboard/login/code/", {"code": code_of(owner)})

    assert response.status_code == 302
    assert response["Location"] == "/dashboard/login/"
    assert client.get("/dashboard/").status_code == 302


def test_api_login_with_two_factor_answers_an_mfa_token_then_the_code_gives_jwts(
    api, owner, traveller
):
    enrol(owner)
    next_step(traveller)

    first = api.post(LOGIN, {"email": owner.email, "password": PASSWORD}, "json")
    data = first.json()["data"]
    assert first.status_code == 200
    assert data["mfa_required"] is True
    assert "access" not in data

    second = api.post(
        LOGIN_MFA, {"mfa_token": data["mfa_token"], "code": code_of(owner)}, "json"
    )

    assert second.status_code == 200
    assert second.json()["data"]["access"]
    assert second.json()["data"]["merchant_id"] == owner.merchant.public_id


def test_a_code_replayed_within_its_window_is_refused(api, owner, traveller):
    enrol(owner)
    next_step(traveller)
    code = code_of(owner)
    token = two_factor.mfa_token_issue(owner)

    first = api.post(LOGIN_MFA, {"mfa_token": token, "code": code}, "json")
    traveller.shift(timedelta(seconds=10))
    replay = api.post(LOGIN_MFA, {"mfa_token": token, "code": code}, "json")

    assert first.status_code == 200
    assert replay.status_code == 401
    assert replay.json()["error"]["code"] == "invalid_credentials"


def test_the_enrolment_code_cannot_sign_in_again(owner, traveller):
    two_factor.enrol_start(member=owner)
    code = code_of(owner)
    two_factor.enrol_confirm(member=owner, code=code)

    assert two_factor.verify(member=owner, code=code) is False


def test_backup_codes_work_once_each(api, owner, traveller):
    codes = enrol(owner)

    for code in codes[:2]:
        token = two_factor.mfa_token_issue(owner)
        used = api.post(LOGIN_MFA, {"mfa_token": token, "code": code}, "json")
        assert used.status_code == 200
    again = api.post(
        LOGIN_MFA,
        {"mfa_token": two_factor.mfa_token_issue(owner), "code": codes[0]},
        "json",
    )

    assert again.status_code == 401
    assert two_factor.backup_codes_left(owner) == 8


def test_wrong_codes_count_toward_the_account_lockout(api, owner, traveller):
    enrol(owner)
    next_step(traveller)
    token = two_factor.mfa_token_issue(owner)

    for _ in range(settings.LOGIN_FAILURES_PER_ACCOUNT):
        wrong = api.post(LOGIN_MFA, {"mfa_token": token, "code": "000000"}, "json")
        assert wrong.status_code == 401
    locked = api.post(LOGIN_MFA, {"mfa_token": token, "code": code_of(owner)}, "json")
    password = api.post(LOGIN, {"email": owner.email, "password": PASSWORD}, "json")

    assert locked.status_code == 429
    assert password.status_code == 429


def test_the_mfa_token_expires_after_5_minutes(api, owner, traveller):
    enrol(owner)
    token = two_factor.mfa_token_issue(owner)
    traveller.shift(timedelta(minutes=5, seconds=1))

    response = api.post(LOGIN_MFA, {"mfa_token": token, "code": code_of(owner)}, "json")

    assert response.status_code == 401


def test_the_mfa_token_ends_when_the_password_changes(api, owner, traveller):
    enrol(owner)
    token = two_factor.mfa_token_issue(owner)
    owner.set_password("Another-Passw0rd-99")
    owner.save()
    next_step(traveller)

    response = api.post(LOGIN_MFA, {"mfa_token": token, "code": code_of(owner)}, "json")

    assert response.status_code == 401


def test_a_team_requiring_two_factor_sends_members_without_it_to_enrol(
    client, api, owner, traveller
):
    enrol(owner)
    support = MemberFactory(merchant=owner.merchant, role="support")
    two_factor.require_two_factor_set(by=owner, required=True)

    signed = client.post(
        "/dashboard/login/", {"email": support.email, "password": PASSWORD}
    )
    overview = client.get("/dashboard/")
    security = client.get("/dashboard/security/")
    api_login = api.post(LOGIN, {"email": support.email, "password": PASSWORD}, "json")

    assert signed["Location"] == "/dashboard/security/"
    assert overview.status_code == 302
    assert overview["Location"] == "/dashboard/security/"
    assert security.status_code == 200
    assert api_login.status_code == 403
    assert api_login.json()["error"]["code"] == "two_factor_required"


def test_two_factor_cannot_be_turned_off_while_the_team_requires_it(owner, traveller):
    enrol(owner)
    two_factor.require_two_factor_set(by=owner, required=True)
    next_step(traveller)

    with pytest.raises(Exception) as refused:
        two_factor.disable(member=owner, code=code_of(owner), client_ip="1.2.3.4")

    assert refused.value.code == "two_factor_required"


def test_only_an_owner_may_require_two_factor(owner):
    admin = MemberFactory(merchant=owner.merchant, role="admin")

    with pytest.raises(Exception) as refused:
        two_factor.require_two_factor_set(by=admin, required=True)

    assert refused.value.code == "forbidden_for_role"


def test_a_dashboard_key_rotation_needs_a_code_from_the_last_10_minutes(
    client, owner, traveller
):
    enrol(owner)
    sign_in(client, owner)
    next_step(traveller)
    client.post("/dashboard/login/code/", {"code": code_of(owner)})
    fresh = client.post("/dashboard/keys/", {"name": "first"})
    assert fresh.status_code == 200
    assert "new-api-key" in fresh.content.decode()

    traveller.shift(timedelta(minutes=11))
    stale = client.post("/dashboard/keys/", {"name": "second"})
    assert stale.status_code == 403
    assert 'data-testid="fresh-code"' in stale.content.decode()

    confirmed = client.post(
        "/dashboard/security/confirm/",
        {"code": code_of(owner), "next": "/dashboard/keys/"},
    )
    assert confirmed.status_code == 303
    assert confirmed["Location"] == "/dashboard/keys/"
    again = client.post("/dashboard/keys/", {"name": "second"})
    assert again.status_code == 200
    assert "new-api-key" in again.content.decode()


def test_a_member_without_two_factor_is_not_asked_for_a_code(client, owner):
    sign_in(client, owner)

    response = client.post("/dashboard/keys/", {"name": "first"})

    assert response.status_code == 200


def test_an_api_key_rotation_needs_a_jwt_with_a_code_from_the_last_10_minutes(
    api, owner, traveller
):
    enrol(owner)
    next_step(traveller)
    url = f"/api/v1/merchant/{owner.merchant.public_id}/rotate-api-key"

    def fresh_jwt():
        token = api.post(LOGIN, {"email": owner.email, "password": PASSWORD}, "json")
        next_step(traveller)
        pair = api.post(
            LOGIN_MFA,
            {"mfa_token": token.json()["data"]["mfa_token"], "code": code_of(owner)},
            "json",
        )
        return {"HTTP_AUTHORIZATION": f"Bearer {pair.json()['data']['access']}"}

    jwt = fresh_jwt()
    assert api.post(url, {}, "json", **jwt).status_code == 201

    traveller.shift(timedelta(minutes=11))
    stale = api.post(url, {}, "json", **jwt)
    assert stale.status_code == 403
    assert stale.json()["error"]["code"] == "fresh_code_required"

    assert api.post(url, {}, "json", **fresh_jwt()).status_code == 201


def test_an_api_webhook_change_needs_a_fresh_code_and_other_settings_do_not(
    api, owner, traveller
):
    enrol(owner)
    url = f"/api/v1/merchant/{owner.merchant.public_id}/settings"
    jwt = {"HTTP_AUTHORIZATION": f"Bearer {merchant_jwt(owner)}"}  # no code

    webhook = api.patch(
        url, {"webhook_secret": "whsec-0123456789abcdef"}, "json", **jwt
    )
    plan = api.patch(url, {"max_installments": 6}, "json", **jwt)

    assert webhook.status_code == 403
    assert webhook.json()["error"]["code"] == "fresh_code_required"
    assert plan.status_code == 200


def test_new_backup_codes_replace_the_old_and_turning_off_needs_a_code(
    client, owner, traveller
):
    old = enrol(owner)
    sign_in(client, owner)
    next_step(traveller)
    client.post("/dashboard/login/code/", {"code": code_of(owner)})
    next_step(traveller)

    renewed = client.post(
        "/dashboard/security/", {"action": "regenerate", "code": code_of(owner)}
    )
    old_works = two_factor.verify(member=owner, code=old[0])
    refused = client.post("/dashboard/security/", {"action": "disable", "code": "1"})
    next_step(traveller)
    off = client.post(
        "/dashboard/security/", {"action": "disable", "code": code_of(owner)}
    )

    assert renewed.status_code == 200
    assert old[0] not in renewed.content.decode()
    assert old_works is False
    assert refused.status_code == 400
    assert off.status_code == 303
    owner.refresh_from_db()
    assert not owner.has_two_factor
    assert owner.backup_codes.count() == 0
