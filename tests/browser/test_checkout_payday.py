"""The payday on the hosted checkout in a real browser (DESIGN section 15): the
field shows for monthly plans only, the live preview follows it, and the plan
gets the dates the preview showed."""

import re

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from checkout import services as checkout_services
from installments.plans import rules
from installments.plans.models import PaymentPlan

from ..conftest import make_merchant_with_key
from ..factories import PASSWORD
from .conftest import AGREE

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def service(settings, live_server):
    """The sandbox's card page sends the customer back to the live server."""
    settings.BASE_URL = live_server.url
    settings.CONSUMER_URL = live_server.url
    return live_server.url


def shown(days) -> list[str]:
    return [f"{day:%-d %b %Y}" for day in days]


def test_the_customer_chooses_a_payday_and_the_plan_keeps_its_dates(
    page, screenshot, service
):
    owner = make_merchant_with_key(allowed_schedule_types=["monthly", "weekly"])
    token = checkout_services.session_create(
        merchant=owner.merchant,
        amount=4_500_000,
        currency="NGN",
        title="Ergonomic office chair",
        order_reference="payday-1",
    ).session.token
    page.goto(f"/checkout/{token}")
    new = page.get_by_role("region", name="I'm new here")
    new.get_by_label("Email").fill("ada.payday@mail.example.com")
    new.get_by_label("First name").fill("Ada")
    new.get_by_label("Last name").fill("Obi")
    new.get_by_label("Phone number").fill("+2348012345678")
    new.get_by_label("Password").fill(PASSWORD)
    new.get_by_role("button", name="Create account").click()
    page.get_by_role("button", name="Add a card").click()
    page.get_by_label("Card number").fill("4084084084084081")
    page.get_by_role("button", name="Pay and continue").click()
    expect(page).to_have_url(re.compile(r"/checkout/fcs_[0-9A-Za-z]+\?method=pm_"))

    payday = page.get_by_label("Payday (monthly plans)")
    expect(payday).to_be_visible()
    payday.select_option(label="The 25th")
    today = timezone.localdate()
    on_the_25th = rules.due_dates(
        start=today, schedule_type="monthly", count=3, preferred_day=25
    )
    rows = page.get_by_test_id("preview-installments").locator("li span:first-child")
    expect(rows).to_have_text(shown(on_the_25th))
    screenshot("payday-chosen")

    # Weekly plans have no payday: the field hides, and comes back for monthly.
    page.get_by_label("How often").select_option("weekly")
    expect(payday).to_be_hidden()
    weekly = rules.due_dates(start=today, schedule_type="weekly", count=3)
    expect(rows).to_have_text(shown(weekly))
    page.get_by_label("How often").select_option("monthly")
    expect(payday).to_be_visible()
    expect(rows).to_have_text(shown(on_the_25th))

    page.get_by_label(AGREE).check()
    page.get_by_role("button", name=re.compile(r"^Pay ₦")).click()

    expect(page.get_by_role("heading", name="Deposit paid")).to_be_visible()
    plan = PaymentPlan.objects.get()
    assert plan.payday == 25
    assert [row.due_date for row in plan.installments.order_by("id")] == list(
        on_the_25th
    )
