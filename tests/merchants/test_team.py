"""A merchant is a team (DESIGN section 20): invitations, role changes and
removals, and the support member's refund limit."""

import re
from datetime import timedelta

import pytest
import time_machine
from django.core import mail
from django.test import Client
from django.utils import timezone

from merchants.team import services
from merchants.team.models import Invitation, Member
from merchants.team.selectors import owner_of

from ..conftest import bearer, merchant_jwt
from ..factories import PASSWORD, MerchantFactory
from .team import member_of, signed_in

pytestmark = pytest.mark.django_db

JOINER_PASSWORD = "Joiner-Passw0rd-19"


def invite(client: Client, email: str, role: str, refund_limit: str = ""):
    return client.post(
        "/dashboard/team/",
        {
            "action": "invite",
            "email": email,
            "role": role,
            "refund_limit": refund_limit,
        },
    )


def link_in_mail() -> str:
    body = mail.outbox[-1].body
    return re.search(r"https?://\S+/dashboard/invitation/\S+/", body).group(0)


def join(link: str, password: str = JOINER_PASSWORD):
    path = "/" + link.split("/", 3)[3]
    client = Client()
    page = client.get(path)
    answer = client.post(
        path, {"new_password": password, "new_password_confirm": password}
    )
    return client, page, answer


def test_an_owner_invites_and_the_invitee_joins_with_their_own_password(
    merchant_active, committed
):
    owner = signed_in(owner_of(merchant_active))

    with committed():
        answer = invite(owner, "Ada@Shop.example.com", "support", "20,000")

    assert answer.status_code == 303
    assert mail.outbox[-1].to == ["ada@shop.example.com"]
    assert "support" in mail.outbox[-1].body
    client, page, joined = join(link_in_mail())
    assert page.status_code == 200
    assert merchant_active.business_name in page.content.decode()
    assert joined.status_code == 303
    member = Member.objects.get(email="ada@shop.example.com")
    assert (member.merchant, member.role) == (merchant_active, "support")
    assert member.refund_limit == 2_000_000
    # Signed in as the new member at once, and with the password later.
    assert client.get("/dashboard/").status_code == 200
    assert signed_in(member, JOINER_PASSWORD).get("/dashboard/").status_code == 200
    # Only the token's hash is stored.
    token = link_in_mail().rstrip("/").rsplit("/", 1)[1]
    assert not Invitation.objects.filter(token_hash=token).exists()


def test_an_invitation_works_once(merchant_active, committed):
    with committed():
        invite(signed_in(owner_of(merchant_active)), "once@shop.example.com", "viewer")
    link = link_in_mail()
    join(link)

    _, page, again = join(link, "Another-Passw0rd-88")

    assert page.status_code == 400
    assert again.status_code == 400
    assert "no longer works" in again.content.decode()
    assert Member.objects.filter(email="once@shop.example.com").count() == 1


def test_an_invitation_expires_after_72_hours(merchant_active, committed):
    start = timezone.now()
    with time_machine.travel(start, tick=False) as clock:
        with committed():
            invite(
                signed_in(owner_of(merchant_active)), "late@shop.example.com", "viewer"
            )
        clock.shift(timedelta(hours=72, seconds=1))

        _, page, answer = join(link_in_mail())

    assert page.status_code == answer.status_code == 400
    assert not Member.objects.filter(email="late@shop.example.com").exists()


def test_a_withdrawn_invitation_no_longer_works(merchant_active, committed):
    owner = signed_in(owner_of(merchant_active))
    with committed():
        invite(owner, "maybe@shop.example.com", "finance")
    invitation = Invitation.objects.get(email="maybe@shop.example.com")

    owner.post(
        "/dashboard/team/",
        {"action": "withdraw", "invitation_id": invitation.public_id},
    )

    assert join(link_in_mail())[2].status_code == 400


def test_an_address_that_already_signs_in_cannot_be_invited(merchant_active):
    other = MerchantFactory()

    answer = invite(signed_in(owner_of(merchant_active)), other.email, "viewer")

    assert answer.status_code == 409
    assert "already signs in" in answer.content.decode()
    assert not Invitation.objects.exists()


def test_only_an_owner_may_make_an_owner(merchant_active):
    admin = member_of(merchant_active, "admin")

    answer = invite(signed_in(admin), "boss@shop.example.com", "owner")

    assert answer.status_code == 403
    assert not Invitation.objects.exists()


def test_a_role_change_ends_the_members_session_and_tokens_at_once(
    merchant_active, api
):
    member = member_of(merchant_active, "developer")
    session = signed_in(member)
    token = merchant_jwt(member)
    keys = f"/api/v1/merchant/{merchant_active.public_id}/api-key/history"
    assert api.get(keys, **bearer(token)).status_code == 200

    signed_in(owner_of(merchant_active)).post(
        "/dashboard/team/",
        {"action": "role", "member_id": member.public_id, "role": "viewer"},
    )

    assert session.get("/dashboard/").status_code == 302
    refused = api.get(keys, **bearer(token))
    assert refused.status_code == 401
    assert "revoked" in refused.json()["detail"]
    # Signed in again, the new role applies.
    again = merchant_jwt(Member.objects.get(pk=member.pk))
    denied = api.get(keys, **bearer(again))
    assert denied.status_code == 403
    assert denied.json()["error"]["code"] == "forbidden_for_role"


def test_a_removed_members_session_and_tokens_are_refused_on_the_next_request(
    merchant_active, api
):
    member = member_of(merchant_active, "finance")
    session = signed_in(member)
    token = merchant_jwt(member)
    wallet = f"/api/v1/merchant/{merchant_active.public_id}/wallet"
    assert api.get(wallet, **bearer(token)).status_code == 200

    signed_in(owner_of(merchant_active)).post(
        "/dashboard/team/", {"action": "remove", "member_id": member.public_id}
    )

    assert session.get("/dashboard/").status_code == 302
    assert api.get(wallet, **bearer(token)).status_code == 401
    refused = Client().post(
        "/dashboard/login/", {"email": member.email, "password": PASSWORD}
    )
    assert refused.status_code == 400


def test_a_team_keeps_an_owner(merchant_active):
    owner = owner_of(merchant_active)
    client = signed_in(owner)

    demoted = client.post(
        "/dashboard/team/",
        {"action": "role", "member_id": owner.public_id, "role": "admin"},
    )
    removed = client.post(
        "/dashboard/team/", {"action": "remove", "member_id": owner.public_id}
    )

    assert demoted.status_code == removed.status_code == 409
    assert "at least one owner" in removed.content.decode()
    owner.refresh_from_db()
    assert (owner.role, owner.status) == ("owner", "active")


def test_an_admin_cannot_remove_an_owner(merchant_active):
    admin = member_of(merchant_active, "admin")
    member_of(merchant_active, "owner")

    answer = signed_in(admin).post(
        "/dashboard/team/",
        {"action": "remove", "member_id": owner_of(merchant_active).public_id},
    )

    assert answer.status_code == 403
    assert owner_of(merchant_active).is_active


def test_two_acceptances_of_one_invitation_make_one_member(merchant_active):
    owner = owner_of(merchant_active)
    _, token = services.member_invite(
        by=owner, email="twice@shop.example.com", role="viewer"
    )
    services.invitation_accept(token=token, password=JOINER_PASSWORD)

    with pytest.raises(Exception) as refused:
        services.invitation_accept(token=token, password=JOINER_PASSWORD)

    assert getattr(refused.value, "code", "") == "invitation_invalid"
    assert Member.objects.filter(email="twice@shop.example.com").count() == 1


def test_the_team_page_shows_the_permission_table(merchant_active):
    page = signed_in(owner_of(merchant_active)).get("/dashboard/team/")

    assert page.status_code == 200
    text = page.content.decode()
    assert 'data-testid="permission-table"' in text
    assert owner_of(merchant_active).email in text


def test_a_token_issued_before_members_acts_as_the_first_owner(merchant_active, api):
    """Tokens from before the data migration name the merchant (`mer_`); its
    first owner carries the merchant's credential version, so they still work,
    and as that owner."""
    from config.api.auth import ROLE_MERCHANT, issue_tokens

    owner = owner_of(merchant_active)
    old = type(
        "Account",
        (),
        {
            "public_id": merchant_active.public_id,
            "credential_version": owner.credential_version,
        },
    )
    token = issue_tokens(role=ROLE_MERCHANT, account=old)["access"]
    keys = f"/api/v1/merchant/{merchant_active.public_id}/api-key/history"

    assert api.get(keys, **bearer(token)).status_code == 200
    services.member_set_password(member=owner, password="Moved-On-Passw0rd-3")
    assert api.get(keys, **bearer(token)).status_code == 401
