"""A support member's refunds are capped by their own refund limit (DESIGN
section 20): the preview and the confirmed refund above it are refused with a
readable 403 and move nothing; within it the refund goes through.

The plan of `plan_active`: 250,000 kobo, deposit 75,000 paid."""

import pytest
from django.test import Client

from installments.refunds.models import Refund

from ..dashboards import sign_in
from ..factories import MemberFactory
from .conftest import check_ledger
from .refund_pages import hidden_fields, preview, refund_url, text

pytestmark = pytest.mark.django_db


def support(setup, limit):
    member = MemberFactory(
        merchant=setup.plan.merchant, role="support", refund_limit=limit
    )
    return sign_in(Client(), member)


def confirm(dashboard, setup, amount: str):
    shown = preview(dashboard, setup, amount=amount)
    assert shown.status_code == 200, text(shown)
    return dashboard.post(refund_url(setup), hidden_fields(shown))


def test_a_support_member_refunds_within_their_limit(plan_active):
    dashboard = support(plan_active, 200_000)

    answer = confirm(dashboard, plan_active, "2,000")

    assert answer.status_code == 303
    assert Refund.objects.get().amount_requested == 200_000
    check_ledger()


def test_a_refund_above_the_limit_is_refused_at_the_preview(plan_active):
    dashboard = support(plan_active, 100_000)

    refused = preview(dashboard, plan_active, amount="1,000.01")

    assert refused.status_code == 403
    assert "more than your refund limit of ₦1,000.00" in text(refused)
    assert not Refund.objects.exists()


def test_a_confirmation_above_a_limit_lowered_since_is_refused(plan_active):
    dashboard = support(plan_active, 200_000)
    shown = preview(dashboard, plan_active, amount="2,000")
    member = plan_active.plan.merchant.members.get(role="support")
    member.refund_limit = 50_000
    member.save(update_fields=["refund_limit"])  # the session stays: same stamp

    refused = dashboard.post(refund_url(plan_active), hidden_fields(shown))

    assert refused.status_code == 403
    assert "refund limit" in text(refused)
    assert not Refund.objects.exists()


def test_a_support_member_without_a_limit_refunds_nothing(plan_active):
    refused = preview(support(plan_active, None), plan_active, amount="1")

    assert refused.status_code == 403
    assert not Refund.objects.exists()


def test_an_owner_has_no_refund_limit(plan_active):
    owner = sign_in(Client(), plan_active.plan.merchant)

    assert confirm(owner, plan_active, "2,000").status_code == 303
    check_ledger()
