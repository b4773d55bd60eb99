"""A merchant's team in a real browser (issue 30, DESIGN section 20): the owner
invites a support member with a refund limit; the member joins from the
e-mailed link, sets up two-factor sign-in by entering the QR code's secret in
an authenticator (pyotp here), signs in again with a code, refunds within the
limit and is refused above it; the owner sees both in the audit log.

Screenshots at 1280x800 and 390x844 go to tests/screenshots/<test name>/;
every page the flow passes is audited with axe-core at both sizes (no serious
or critical finding) and for phone width. The clock is moved, never waited
on: a code is accepted once per 30-second step.
"""

import re
from datetime import timedelta

import pyotp
import pytest
import time_machine
from django.core import mail
from django.utils import timezone
from playwright.sync_api import expect

from installments.refunds.models import Refund
from merchants.audit.models import AuditEntry
from merchants.team.models import Member

from ..conftest import make_merchant_with_key
from ..installments.conftest import check_ledger, make_active_plan
from .axe import SIZES, Audit
from .conftest import PHONE, sign_in

pytestmark = pytest.mark.django_db(transaction=True)

DESKTOP = SIZES["desktop"]
SUPPORT_EMAIL = "bola@ada-electronics.example.com"
SUPPORT_PASSWORD = "Bola-Support-Passw0rd-5"


@pytest.fixture
def service(settings, live_server):
    settings.BASE_URL = live_server.url
    settings.CONSUMER_URL = live_server.url
    return live_server.url


def both_sizes(page, screenshot, audits, name):
    """A screenshot and an audit of the page at each size, back to desktop."""
    for size, viewport in SIZES.items():
        page.set_viewport_size(viewport)
        audits[size].check(f"{name}-{size}")
    page.set_viewport_size(DESKTOP)


def sign_out(page):
    page.get_by_role("button", name="Sign out").click()
    page.wait_for_url("**/dashboard/login/**")


def test_an_owner_invites_support_who_uses_two_factor_and_refunds_within_a_limit(
    page, screenshot, service
):
    owner = make_merchant_with_key(business_name="Ada's Electronics")
    plan = make_active_plan(owner, order_reference="ORD-TEAM-1001").plan
    audits = {
        size: Audit(page, viewport, screenshot) for size, viewport in SIZES.items()
    }
    page.set_viewport_size(DESKTOP)

    # The owner invites a support member with a limit of ₦1,000 a refund.
    sign_in(page, owner.merchant)
    page.get_by_role("navigation", name="Dashboard").get_by_role(
        "link", name="Team", exact=True
    ).click()
    page.get_by_label("E-mail address").fill(SUPPORT_EMAIL)
    page.get_by_label("Role", exact=True).select_option("support")
    page.get_by_label("Refund limit (₦, support only)").fill("1,000")
    page.get_by_role("button", name="Send the invitation").click()
    expect(page.get_by_role("status").first).to_contain_text(
        f"Invitation e-mailed to {SUPPORT_EMAIL}"
    )
    expect(page.get_by_test_id("invitations")).to_contain_text(SUPPORT_EMAIL)
    both_sizes(page, screenshot, audits, "team")
    sign_out(page)

    # The member joins from the e-mailed link with a password of their own.
    [invitation] = [m for m in mail.outbox if m.to == [SUPPORT_EMAIL]]
    link = re.search(r"https?://\S+/dashboard/invitation/\S+/", invitation.body)[0]
    page.goto(link)
    expect(page.get_by_role("heading", name="Join Ada's Electronics")).to_be_visible()
    both_sizes(page, screenshot, audits, "invitation")
    page.get_by_label("New password", exact=True).fill(SUPPORT_PASSWORD)
    page.get_by_label("New password (again)").fill(SUPPORT_PASSWORD)
    page.get_by_role("button", name="Join the team").click()
    page.wait_for_url("**/dashboard/")

    # Two-factor sign-in: the QR code's secret into an authenticator app.
    page.get_by_role("link", name="Security").click()
    page.get_by_role("button", name="Set up two-factor sign-in").click()
    expect(page.get_by_test_id("qr-code").locator("svg")).to_be_visible()
    both_sizes(page, screenshot, audits, "security-qr")
    app = pyotp.TOTP(page.get_by_test_id("totp-secret").inner_text().strip())
    page.get_by_role("textbox", name="Code").fill(app.now())
    page.get_by_role("button", name="Turn on").click()
    expect(page.get_by_test_id("backup-codes")).to_be_visible()
    screenshot("backup-codes")
    sign_out(page)

    # The next sign-in asks for a code (a later step: each is accepted once).
    with time_machine.travel(timezone.now() + timedelta(seconds=31), tick=True):
        page.goto("/dashboard/login/")
        page.get_by_label("Email").fill(SUPPORT_EMAIL)
        page.get_by_label("Password").fill(SUPPORT_PASSWORD)
        page.get_by_role("button", name="Sign in").click()
        page.wait_for_url("**/dashboard/login/code/")
        both_sizes(page, screenshot, audits, "sign-in-code")
        page.get_by_role("textbox", name="Code").fill(app.now())
        page.get_by_role("button", name="Sign in").click()
        page.wait_for_url("**/dashboard/")

    # A refund within the limit goes through ...
    page.goto(f"/dashboard/plans/{plan.public_id}/")
    page.get_by_label("Amount to refund (₦)").fill("500")
    page.get_by_label("Reason").fill("Returned the charger")
    page.get_by_role("button", name="Review refund").click()
    page.get_by_role("button", name="Confirm refund of ₦500.00").click()
    expect(page.get_by_role("status").first).to_contain_text("of ₦500.00 created")
    # ... one above it is refused, and nothing moves.
    page.get_by_label("Amount to refund (₦)").fill("1,500")
    page.get_by_label("Reason").fill("Returned the phone")
    page.get_by_role("button", name="Review refund").click()
    expect(page.get_by_role("alert").first).to_contain_text(
        "more than your refund limit of ₦1,000.00"
    )
    both_sizes(page, screenshot, audits, "refund-over-limit")
    refund = Refund.objects.get()
    assert refund.amount_requested == 50_000
    sign_out(page)

    # The owner sees both in the audit log, by the support member.
    sign_in(page, owner.merchant)
    page.goto("/dashboard/audit-log/")
    member = Member.objects.get(email=SUPPORT_EMAIL)
    made = page.locator('tr[data-action="refund.created"]')
    refused = page.locator('tr[data-action="refund.refused_over_limit"]')
    expect(made).to_have_count(1)
    expect(made).to_contain_text(member.public_id)
    expect(made).to_contain_text(SUPPORT_EMAIL)
    expect(refused).to_have_count(1)
    expect(refused).to_contain_text(SUPPORT_EMAIL)
    expect(refused).to_contain_text("150000")
    both_sizes(page, screenshot, audits, "audit-log")
    page.set_viewport_size(PHONE)
    screenshot("audit-log-phone")
    assert AuditEntry.objects.filter(actor_id=member.public_id).count() >= 4
    for audit in audits.values():
        audit.assert_clean()
    check_ledger()
