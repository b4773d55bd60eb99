"""Members of a merchant's team for the tests: one of each role, signed in."""

from django.test import Client

from merchants.team.roles import Role

from ..dashboards import sign_in
from ..factories import PASSWORD, MemberFactory


def member_of(merchant, role: str, **fields):
    return MemberFactory(merchant=merchant, role=role, **fields)


def team_of(merchant) -> dict:
    """`{role: member}`: the factory's owner and one member of every other role."""
    from merchants.team.selectors import owner_of

    team = {Role.OWNER.value: owner_of(merchant)}
    for role in Role.values:
        if role != Role.OWNER:
            team[role] = member_of(merchant, role)
    return team


def signed_in(member, password: str = PASSWORD) -> Client:
    return sign_in(Client(), member, password)
