"""A monthly plan's preferred day and working-day due dates through the API
(DESIGN section 15): the preview shows the dates the completed plan really gets,
the plan keeps the choice, and a bad value is a readable 400 that changes nothing.
"""

from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.utils import timezone

from checkout import services
from installments.plans.models import PaymentPlan

from ..conftest import make_merchant_with_key
from .conftest import (
    CARD_POOR,
    PREVIEW_URL,
    add_card,
    complete,
    deposit_charges,
    open_session,
)

pytestmark = pytest.mark.django_db

# 10:00 Lagos time on Saturday 31 January 2026 and on Wednesday 11 and 18 March.
JAN_31 = datetime(2026, 1, 31, 9, 0, tzinfo=UTC)
MAR_11 = datetime(2026, 3, 11, 9, 0, tzinfo=UTC)
MAR_18 = datetime(2026, 3, 18, 9, 0, tzinfo=UTC)

# From 31 January 2026, 3 monthly installments, by preferred day.
DUE_FROM_JAN_31 = {
    # 28 February is a Saturday.
    None: ["2026-03-02", "2026-03-31", "2026-04-30"],
    # 25 January is a Sunday, and too soon anyway; 25 April is a Saturday.
    25: ["2026-02-25", "2026-03-25", "2026-04-27"],
    # Saturdays 28 February and 28 March.
    28: ["2026-03-02", "2026-03-30", "2026-04-28"],
    # Saturday 28 February.
    "last_working_day": ["2026-02-27", "2026-03-31", "2026-04-30"],
}


def preview_body(merchant, **fields) -> dict:
    return {
        "merchant_id": merchant.public_id,
        "amount": 250_000,
        "schedule_type": "monthly",
        "installment_count": 3,
    } | fields


def with_preferred_day(preferred_day) -> dict:
    return {} if preferred_day is None else {"preferred_day": preferred_day}


def test_the_preview_shows_the_payday_dates(api, merchant_with_key):
    body = preview_body(merchant_with_key.merchant, preferred_day=25)

    with time_machine.travel(MAR_11, tick=False):
        response = api.post(
            PREVIEW_URL, body, format="json", **merchant_with_key.headers
        )

    assert response.status_code == 200, response.content
    # 14 days after 11 March is 25 March: this month's; 25 April is a Saturday.
    assert response.json()["data"]["due_dates"] == [
        "2026-03-25",
        "2026-04-27",
        "2026-05-25",
    ]


@pytest.mark.parametrize("preferred_day", list(DUE_FROM_JAN_31))
def test_the_preview_shows_the_dates_the_completed_plan_gets(
    merchant_with_key, shopper, card, preferred_day
):
    chosen = with_preferred_day(preferred_day)
    with time_machine.travel(JAN_31):
        shopper.sign_in_again()
        token = open_session(merchant_with_key)
        preview = shopper.post(
            PREVIEW_URL, preview_body(merchant_with_key.merchant, **chosen)
        )
        response = complete(shopper, token, card, **chosen)

    assert preview.status_code == 200, preview.content
    assert response.status_code == 201, response.content
    plan = response.json()["data"]
    shown = preview.json()["data"]["due_dates"]
    assert [item["due_date"] for item in plan["installments"]] == shown
    assert shown == DUE_FROM_JAN_31[preferred_day]
    assert plan["preferred_day"] == preferred_day
    stored = PaymentPlan.objects.get()
    assert stored.payday == preferred_day
    due = [row.due_date.isoformat() for row in stored.installments.order_by("id")]
    assert due == shown


def test_a_null_preferred_day_is_none(merchant_with_key, shopper, card):
    with time_machine.travel(JAN_31):
        shopper.sign_in_again()
        response = complete(
            shopper, open_session(merchant_with_key), card, preferred_day=None
        )

    assert response.status_code == 201, response.content
    plan = response.json()["data"]
    assert plan["preferred_day"] is None
    assert [item["due_date"] for item in plan["installments"]] == DUE_FROM_JAN_31[None]


BAD_VALUES = [0, 29, 31, -1, "25", "last", "LAST_WORKING_DAY", "", True, 2.5, [25]]


@pytest.mark.parametrize("value", BAD_VALUES)
def test_a_bad_preferred_day_is_400_and_charges_nothing(
    merchant_with_key, shopper, card, value
):
    token = open_session(merchant_with_key)

    response = complete(shopper, token, card, preferred_day=value)

    assert response.status_code == 400, response.content
    [message] = response.json()["errors"]["preferred_day"]
    assert message == (
        'Enter a day of the month from 1 to 28 (a JSON integer), or "last_working_day".'
    )
    assert deposit_charges().count() == 0
    assert not PaymentPlan.objects.exists()


@pytest.mark.parametrize("value", BAD_VALUES)
def test_a_bad_preferred_day_in_a_preview_is_400(api, merchant_with_key, value):
    body = preview_body(merchant_with_key.merchant, preferred_day=value)

    response = api.post(PREVIEW_URL, body, format="json", **merchant_with_key.headers)

    assert response.status_code == 400, response.content
    assert "1 to 28" in response.json()["errors"]["preferred_day"][0]


@pytest.mark.parametrize("schedule", ["weekly", "biweekly"])
def test_a_preferred_day_with_a_weekly_plan_is_400_and_charges_nothing(
    api, shopper, card, schedule
):
    owner = make_merchant_with_key(
        allowed_schedule_types=["monthly", "biweekly", "weekly"]
    )
    token = open_session(owner)

    response = complete(shopper, token, card, schedule_type=schedule, preferred_day=25)
    preview = api.post(
        PREVIEW_URL,
        preview_body(owner.merchant, schedule_type=schedule, preferred_day=25),
        format="json",
        **owner.headers,
    )

    for answer in (response, preview):
        assert answer.status_code == 400, answer.content
        error = answer.json()["error"]
        assert error["code"] == "invalid_preferred_day"
        assert error["message"] == (
            f"preferred_day applies to monthly plans only; leave it out (or null) "
            f"for a {schedule} plan."
        )
    assert deposit_charges().count() == 0
    assert not PaymentPlan.objects.exists()


def test_a_weekly_plan_at_checkout_moves_off_weekends(merchant_with_key, shopper, card):
    owner = make_merchant_with_key(allowed_schedule_types=["weekly"])
    with time_machine.travel(JAN_31):
        shopper.sign_in_again()
        token = open_session(owner)
        response = complete(shopper, token, card, schedule_type="weekly")

    assert response.status_code == 201, response.content
    due = [item["due_date"] for item in response.json()["data"]["installments"]]
    # Saturdays 7, 14 and 21 February.
    assert due == ["2026-02-09", "2026-02-16", "2026-02-23"]


def test_after_a_declined_deposit_the_plan_keeps_the_new_attempts_choice(
    merchant_with_key, shopper
):
    poor_card = add_card(shopper, CARD_POOR)
    with time_machine.travel(JAN_31):
        shopper.sign_in_again()
        token = open_session(merchant_with_key)
        declined = complete(shopper, token, poor_card, preferred_day=28)
        pending = PaymentPlan.objects.get()
        good_card = add_card(shopper)
        response = complete(shopper, token, good_card, preferred_day=25)

    assert declined.status_code == 402
    assert (pending.status, pending.preferred_day) == ("pending", "28")
    assert response.status_code == 201, response.content
    plan = response.json()["data"]
    assert plan["id"] == pending.public_id
    assert plan["preferred_day"] == 25
    due = [item["due_date"] for item in plan["installments"]]
    assert due == DUE_FROM_JAN_31[25]


def test_a_deposit_settled_later_snaps_to_the_stored_preferred_day(
    merchant_with_key, shopper, card, monkeypatch
):
    """The charge went through but its answer was lost: the sweeper settles it
    minutes later, and the installments it makes then keep the customer's
    payday, which only the plan remembers."""
    from checkout.services import completion

    real_charge = completion.saved_method_charge

    def charge_then_crash(**kwargs):
        real_charge(**kwargs)
        raise ConnectionResetError("worker died")

    monkeypatch.setattr(completion, "saved_method_charge", charge_then_crash)
    with time_machine.travel(MAR_18):
        shopper.sign_in_again()
        token = open_session(merchant_with_key)
        crashed = complete(shopper, token, card, preferred_day="last_working_day")
        later = timezone.now() + services.STALE_ATTEMPT_AGE + timedelta(seconds=1)
    assert crashed.status_code == 500
    with time_machine.travel(later):
        assert services.stale_attempts_settle() == 1

    plan = PaymentPlan.objects.get()
    assert plan.status == "active"
    # 31 March is 13 days after 18 March: April's is the first; May's last
    # working day is Wednesday 27th (Eid al-Adha 28th-29th, then a weekend).
    assert [row.due_date.isoformat() for row in plan.installments.order_by("id")] == [
        "2026-04-30",
        "2026-05-27",
        "2026-06-30",
    ]
