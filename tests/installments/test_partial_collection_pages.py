"""What the customer's account pages and the merchant's dashboard show of a
partial collection (DESIGN section 15): what was collected and what is left."""

import re

import pytest
from django.test import Client

from ..dashboards import sign_in
from .account import signed_in
from .conftest import installments_of
from .partial_plans import first_three_attempts, last_retry, partial_plan, refreshed

pytestmark = pytest.mark.django_db


def naira(kobo: int) -> str:
    return f"₦{kobo // 100:,}.{kobo % 100:02d}"


def text(response) -> str:
    return re.sub(r"\s+", " ", response.content.decode())


@pytest.fixture
def partly_collected():
    setup = partial_plan(percent=50)
    first = installments_of(setup.plan)[0]
    first_three_attempts(first)
    last_retry(first)
    return setup, refreshed(first)


def test_the_customer_sees_what_was_collected_and_what_is_left(partly_collected):
    setup, first = partly_collected
    client = signed_in(setup.plan.customer.email)

    page = text(client.get(f"/account/plans/{setup.plan.public_id}/"))
    overview = text(client.get("/account/"))

    left = first.amount - first.amount_paid
    assert f"{naira(first.amount_paid)} collected, {naira(left)} left" in page
    # Paying early offers the rest, not the whole installment.
    assert f"Pay installment 1 ({naira(left)}) now?" in page
    assert f"{naira(left)} on " in overview


def test_the_merchant_sees_the_partial_collection_on_the_plans_page(partly_collected):
    setup, first = partly_collected

    page = text(
        sign_in(Client(), setup.owner.merchant).get(
            f"/dashboard/plans/{setup.plan.public_id}/"
        )
    )

    assert (
        f"Partially collected: {naira(first.amount_paid)} of {naira(first.amount)}"
        in page
    )
    left = naira(first.amount - first.amount_paid)
    assert re.search(rf'data-testid="owed">{re.escape(left)}<', page)
