"""Rescheduling from the pages (DESIGN section 15): the customer's "Move a due
date" page under /account/ within the merchant's limits, the dashboard's
"Reschedule" page of a plan without them, the schedule's history on both plan
pages, and the rescheduling limits on the dashboard's settings page."""

from datetime import date

import pytest
from django.test import Client

from installments.reschedules.models import Reschedule
from merchants.models import Merchant

from ..dashboards import sign_in
from .account import signed_in, text
from .conftest import installments_of, make_active_plan
from .reschedule_days import FIRST, SECOND, THIRD, TODAY, on

pytestmark = pytest.mark.django_db


@pytest.fixture
def setup(db):
    with on(TODAY):
        yield make_active_plan()


def customer_page(setup) -> str:
    return f"/account/plans/{setup.plan.public_id}/reschedule/"


def dashboard_page(setup) -> str:
    return f"/dashboard/plans/{setup.plan.public_id}/reschedule/"


def dates(setup) -> list[date]:
    return [row.due_date for row in installments_of(setup.plan)]


def test_the_customer_moves_a_due_date_from_their_account(setup):
    ada = signed_in(setup.shopper.customer.email)
    first = installments_of(setup.plan)[0]
    form = text(ada.get(customer_page(setup)))
    assert "up to <strong>14 days</strong> later" in form
    assert f'<option value="{first.public_id}">' in form
    # Not the last one: a customer cannot move it.
    assert f'<option value="{installments_of(setup.plan)[2].public_id}"' not in form

    response = ada.post(
        customer_page(setup),
        {"installment_id": first.public_id, "due_date": "2026-12-09"},
    )

    assert response.status_code == 303
    assert response["Location"] == f"/account/plans/{setup.plan.public_id}/"
    assert dates(setup) == [date(2026, 12, 9), SECOND, THIRD]
    page = text(ada.get(response["Location"]))
    assert "Installment 1 is now due on Wednesday 9 December 2026." in page
    assert "Installment 1 moved from 2 Dec 2026 to 9 Dec 2026 by you" in page
    # The allowance of one is used: the page says so instead of the form.
    again = text(ada.get(customer_page(setup)))
    assert "You have moved as many due dates of this plan" in again


def test_a_refused_move_shows_why_with_the_apis_status_and_changes_nothing(setup):
    ada = signed_in(setup.shopper.customer.email)
    first = installments_of(setup.plan)[0]

    response = ada.post(
        customer_page(setup),
        {"installment_id": first.public_id, "due_date": "2026-12-05"},
    )

    assert response.status_code == 422
    assert "Saturday 5 December 2026 is not a working day" in text(response)
    assert dates(setup) == [FIRST, SECOND, THIRD]
    assert not Reschedule.objects.exists()
    bad = ada.post(customer_page(setup), {"installment_id": first.public_id})
    assert bad.status_code == 400


def test_another_customers_plan_has_no_reschedule_page(setup):
    with on(TODAY):
        other = make_active_plan(email="eve@mail.example.com")
    eve = signed_in(other.shopper.customer.email)

    assert eve.get(customer_page(setup)).status_code == 404
    assert eve.post(customer_page(setup), {}).status_code == 404


def test_the_merchant_moves_the_last_installment_from_the_dashboard(setup):
    client = sign_in(Client(), setup.owner.merchant)
    last = installments_of(setup.plan)[2]

    response = client.post(
        dashboard_page(setup),
        {"installment_id": last.public_id, "due_date": "2027-03-31"},
    )

    assert response.status_code == 303, response.content
    assert dates(setup) == [FIRST, SECOND, date(2027, 3, 31)]
    page = text(client.get(f"/dashboard/plans/{setup.plan.public_id}/"))
    assert "installment 3 rescheduled from 2 Feb 2027 to 31 Mar 2027 by you" in page


def test_the_merchant_cannot_pass_the_next_installment_from_the_dashboard(setup):
    client = sign_in(Client(), setup.owner.merchant)
    first = installments_of(setup.plan)[0]

    response = client.post(
        dashboard_page(setup),
        {"installment_id": first.public_id, "due_date": SECOND.isoformat()},
    )

    assert response.status_code == 422
    assert "installment 1 must stay before it" in text(response)
    assert dates(setup) == [FIRST, SECOND, THIRD]


def test_another_merchants_plan_has_no_reschedule_page(setup):
    with on(TODAY):
        other = make_active_plan(email="eve@mail.example.com")
    client = sign_in(Client(), other.owner.merchant)

    assert client.get(dashboard_page(setup)).status_code == 404


def test_the_rescheduling_limits_are_set_on_the_settings_page(setup):
    merchant = setup.owner.merchant
    client = sign_in(Client(), merchant)
    page = "/dashboard/settings/"

    response = client.post(
        page,
        {
            "action": "reschedules",
            "customer_reschedules_allowed": "0",
            "reschedule_max_days": "7",
        },
    )

    assert response.status_code == 303
    merchant = Merchant.objects.get(pk=merchant.pk)
    assert (merchant.customer_reschedules_allowed, merchant.reschedule_max_days) == (
        0,
        7,
    )
    refused = client.post(
        page,
        {
            "action": "reschedules",
            "customer_reschedules_allowed": "1",
            "reschedule_max_days": "90",
        },
    )
    assert refused.status_code == 400
    assert "less than or equal to 60" in text(refused)
    assert Merchant.objects.get(pk=merchant.pk).reschedule_max_days == 7
