"""The team's rules under real concurrency, on PostgreSQL: two owners removing
each other at once leave one owner; one invitation accepted from two tabs at
once makes one member."""

import pytest
from django.conf import settings

from merchants.errors import InvitationInvalid, LastOwner, MemberAlreadyExists
from merchants.team import services
from merchants.team.models import Member
from merchants.team.selectors import owner_of

from ..concurrency import run_concurrently
from ..factories import MerchantFactory
from .team import member_of

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.skipif(
        not settings.IS_POSTGRES,
        reason="SQLite serialises every write transaction, so two changes of a "
        "team cannot overlap there; run with DATABASE_URL=postgres://...",
    ),
    pytest.mark.django_db(transaction=True),
]


def test_two_owners_removing_each_other_at_once_leave_one_owner():
    merchant = MerchantFactory(status="active")
    first, second = owner_of(merchant), member_of(merchant, "owner")
    pairs = iter([(first, second), (second, first)])

    def remove():
        by, member = next(pairs)
        return services.member_remove(by=by, member=member)

    results = run_concurrently(remove, 2)

    assert sum(isinstance(result, Member) for result in results) == 1
    assert sum(isinstance(result, LastOwner) for result in results) == 1
    owners = Member.objects.filter(merchant=merchant, role="owner", status="active")
    assert owners.count() == 1


def test_one_invitation_accepted_twice_at_once_makes_one_member():
    merchant = MerchantFactory(status="active")
    _, token = services.member_invite(
        by=owner_of(merchant), email="race@shop.example.com", role="viewer"
    )

    results = run_concurrently(
        lambda: services.invitation_accept(token=token, password="Race-Passw0rd-31"),
        4,
    )

    assert sum(isinstance(result, Member) for result in results) == 1
    assert all(
        isinstance(result, Member | InvitationInvalid | MemberAlreadyExists)
        for result in results
    ), results
    assert Member.objects.filter(email="race@shop.example.com").count() == 1
