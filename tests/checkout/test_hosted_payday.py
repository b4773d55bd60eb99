"""The payday on the hosted checkout (DESIGN section 15): the plan chooser offers
a preferred day for monthly plans, the page and its live preview show the dates
the plan will really have, and paying keeps the choice."""

from datetime import UTC, datetime

import pytest
import time_machine
from django.test import Client

from installments.plans.models import PaymentPlan

from ..conftest import make_merchant_with_key
from .conftest import deposit_charges, open_session
from .hosted import add_card_on_page, register_on_page, text

pytestmark = pytest.mark.django_db

# 10:00 Lagos time on Saturday 31 January 2026.
JAN_31 = datetime(2026, 1, 31, 9, 0, tzinfo=UTC)


@pytest.fixture
def browser():
    return Client()


@pytest.fixture
def on_jan_31():
    with time_machine.travel(JAN_31):
        yield


@pytest.fixture
def signed_in(browser, merchant_with_key, on_jan_31):
    """(token, method id): a customer signed in on the checkout, with a card."""
    token = open_session(merchant_with_key)
    register_on_page(browser, token)
    return token, add_card_on_page(browser, token)


def shown_dates(page: str) -> list[str]:
    preview = page.split('data-testid="preview-installments"')[1].split("</ol>")[0]
    return [part.split("</span>")[0] for part in preview.split("<li><span>")[1:]]


def test_the_plan_chooser_offers_a_payday_for_monthly_plans(browser, signed_in):
    token, _ = signed_in

    page = text(browser.get(f"/checkout/{token}"))

    assert '<select id="preferred_day" name="preferred_day" data-preview-input' in page
    assert '<option value="" selected>Same day of the month as today</option>' in page
    for value, label in [("1", "1st"), ("2", "2nd"), ("3", "3rd"), ("11", "11th")]:
        assert f'<option value="{value}">The {label}</option>' in page
    assert '<option value="22">The 22nd</option>' in page
    assert '<option value="28">The 28th</option>' in page
    assert '<option value="29">' not in page
    assert '<option value="last_working_day">The last working day</option>' in page
    # Without a payday, 28 February (a Saturday) is shown as Monday 2 March.
    assert shown_dates(page) == ["2 Mar 2026", "31 Mar 2026", "30 Apr 2026"]
    assert "Due dates fall on working days" in page


def test_the_page_shows_the_dates_of_the_chosen_payday(browser, signed_in):
    token, _ = signed_in

    page = text(browser.get(f"/checkout/{token}", {"preferred_day": "25"}))

    assert '<option value="25" selected>The 25th</option>' in page
    assert shown_dates(page) == ["25 Feb 2026", "25 Mar 2026", "27 Apr 2026"]


def test_the_live_preview_follows_the_payday(browser, signed_in):
    token, _ = signed_in

    answer = browser.get(
        f"/checkout/{token}/preview",
        {
            "schedule_type": "monthly",
            "installment_count": "3",
            "preferred_day": "last_working_day",
        },
    )

    assert answer.status_code == 200
    due = [item["due_date"] for item in answer.json()["data"]["installments"]]
    assert due == ["2026-02-27", "2026-03-31", "2026-04-30"]


def test_paying_keeps_the_payday_and_the_dates_the_page_showed(browser, signed_in):
    token, method_id = signed_in
    choice = {"schedule_type": "monthly", "installment_count": "3"}
    preview = browser.get(
        f"/checkout/{token}/preview", {**choice, "preferred_day": "28"}
    )

    paid = browser.post(
        f"/checkout/{token}/pay",
        {
            **choice,
            "preferred_day": "28",
            "payment_method_id": method_id,
            "terms_accepted": "yes",
        },
    )

    assert paid.status_code == 303, text(paid)
    plan = PaymentPlan.objects.get()
    assert plan.payday == 28
    shown = [item["due_date"] for item in preview.json()["data"]["installments"]]
    due = [row.due_date.isoformat() for row in plan.installments.order_by("id")]
    assert due == shown == ["2026-03-02", "2026-03-30", "2026-04-28"]
    done = text(browser.get(paid["Location"]))
    for day in due:
        assert f'data-due-date="{day}"' in done


def test_a_weekly_plan_ignores_the_hidden_payday_field(browser, on_jan_31):
    owner = make_merchant_with_key(allowed_schedule_types=["monthly", "weekly"])
    token = open_session(owner)
    register_on_page(browser, token)
    method_id = add_card_on_page(browser, token)

    paid = browser.post(
        f"/checkout/{token}/pay",
        {
            "schedule_type": "weekly",
            "installment_count": "2",
            "preferred_day": "25",
            "payment_method_id": method_id,
            "terms_accepted": "yes",
        },
    )

    assert paid.status_code == 303, text(paid)
    plan = PaymentPlan.objects.get()
    assert (plan.schedule_type, plan.payday) == ("weekly", None)
    # Saturdays 7 and 14 February.
    due = [row.due_date.isoformat() for row in plan.installments.order_by("id")]
    assert due == ["2026-02-09", "2026-02-16"]


def test_a_merchant_without_monthly_plans_shows_no_payday(browser, on_jan_31):
    owner = make_merchant_with_key(allowed_schedule_types=["weekly"])
    token = open_session(owner)
    register_on_page(browser, token)

    page = text(browser.get(f"/checkout/{token}"))

    assert 'name="schedule_type"' in page
    assert 'name="preferred_day"' not in page


@pytest.mark.parametrize("value", ["29", "0", "soon"])
def test_a_tampered_payday_is_refused_on_the_page_and_charges_nothing(
    browser, signed_in, value
):
    token, method_id = signed_in

    response = browser.post(
        f"/checkout/{token}/pay",
        {
            "schedule_type": "monthly",
            "installment_count": "3",
            "preferred_day": value,
            "payment_method_id": method_id,
            "terms_accepted": "yes",
        },
    )

    assert response.status_code == 400
    assert "preferred_day must be a day of the month from 1 to 28" in text(response)
    assert deposit_charges().count() == 0
    assert PaymentPlan.objects.filter(status="active").count() == 0
