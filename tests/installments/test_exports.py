"""CSV exports of plans and of installments due in a range, and the orders in a
payout's settlement report (issue 18, DESIGN section 16): the same rows and
sums as the API's JSON, the filters respected, only the merchant's own rows,
formulas neutralised."""

import csv
import io

import pytest
from django.core.cache import cache
from django.test import Client

from payments.payouts.services.payouts import payout_create

from ..conftest import make_merchant_with_key
from ..dashboards import sign_in
from ..payments.conftest import set_payout_account
from .conftest import check_ledger, make_active_plan

pytestmark = pytest.mark.django_db

PLANS = "/api/v1/payment-plans"
INSTALLMENTS = "/api/v1/installments"
INJECTED = '=HYPERLINK("http://evil.example","x")'


def rows_of(response) -> list[dict]:
    assert response.status_code == 200, response.content[:500]
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    text = b"".join(response.streaming_content).decode()
    return list(csv.DictReader(io.StringIO(text)))


@pytest.fixture
def shop(db):
    """Two plans of one merchant (one with a formula for an order reference),
    and a plan of another merchant."""
    cache.clear()  # the processor's bank list, read by the payout account
    owner = make_merchant_with_key()
    first = make_active_plan(owner, "ada@mail.example.com", order_reference="ORD-1")
    second = make_active_plan(
        owner, "bola@mail.example.com", order_reference=INJECTED, amount=400_000
    )
    other = make_active_plan(email="chi@mail.example.com", order_reference="ORD-9")
    return owner, first.plan, second.plan, other.plan


def test_the_plans_csv_has_the_rows_and_sums_of_the_json(api, shop):
    owner, first, second, other = shop

    listed = api.get(PLANS, **owner.headers).json()
    rows = rows_of(api.get(f"{PLANS}?format=csv", **owner.headers))

    assert [row["id"] for row in rows] == [plan["id"] for plan in listed["data"]]
    assert len(rows) == listed["total"] == 2
    for name in ("total_amount", "deposit_amount", "amount_paid", "amount_remaining"):
        assert sum(int(row[name]) for row in rows) == sum(
            plan[name] for plan in listed["data"]
        )
    assert other.public_id not in {row["id"] for row in rows}
    next_due = {row["id"]: row["next_due_date"] for row in rows}
    assert (
        next_due[first.public_id]
        == first.installments.order_by("sequence").first().due_date.isoformat()
    )


def test_a_formula_in_an_order_reference_is_written_as_text(api, shop):
    owner, _, second, _ = shop

    rows = rows_of(api.get(f"{PLANS}?format=csv", **owner.headers))

    row = next(row for row in rows if row["id"] == second.public_id)
    assert row["order_reference"] == "'" + INJECTED
    assert row["total_amount"] == "400000"
    assert row["total_amount_naira"] == "4000.00"


def test_the_plans_csv_keeps_the_order_reference_filter(api, shop):
    owner, first, _, _ = shop

    rows = rows_of(
        api.get(f"{PLANS}?format=csv&order_reference=ORD-1", **owner.headers)
    )

    assert [row["id"] for row in rows] == [first.public_id]


def test_installments_due_in_a_range_as_json_and_csv(api, shop):
    owner, first, second, other = shop
    dates = sorted(
        {inst.due_date for plan in (first, second) for inst in plan.installments.all()}
    )
    start, end = dates[1], dates[-2]
    query = f"due_from={start}&due_to={end}"

    listed = api.get(f"{INSTALLMENTS}?{query}&limit=100", **owner.headers).json()
    rows = rows_of(api.get(f"{INSTALLMENTS}?{query}&format=csv", **owner.headers))

    expected = {
        inst.public_id
        for plan in (first, second)
        for inst in plan.installments.all()
        if start <= inst.due_date <= end
    }
    assert {row["id"] for row in rows} == expected == {i["id"] for i in listed["data"]}
    assert listed["total"] == len(rows)
    assert all(start.isoformat() <= row["due_date"] <= end.isoformat() for row in rows)
    assert sum(int(row["amount"]) for row in rows) == sum(
        item["amount"] for item in listed["data"]
    )
    assert {row["payment_plan_id"] for row in rows} <= {
        first.public_id,
        second.public_id,
    }
    assert other.public_id not in {row["payment_plan_id"] for row in rows}


def test_a_bad_date_is_a_json_400_and_a_backwards_range_matches_nothing(api, shop):
    owner = shop[0]

    bad = api.get(f"{INSTALLMENTS}?due_from=2026-02-30&format=csv", **owner.headers)
    backwards = api.get(
        f"{INSTALLMENTS}?due_from=2026-05-02&due_to=2026-05-01&format=csv",
        **owner.headers,
    )

    assert bad.status_code == 400
    assert bad["Content-Type"] == "application/json"
    assert "due_from" in bad.json()["errors"]
    assert rows_of(backwards) == []


def test_the_plan_pages_downloads_keep_the_filters_and_the_range(shop):
    owner, first, second, other = shop
    browser = sign_in(Client(), owner.merchant)

    page = browser.get("/dashboard/plans/?q=ORD-1").content.decode()
    searched = rows_of(browser.get("/dashboard/plans.csv?q=ORD-1"))
    everything = rows_of(browser.get("/dashboard/plans.csv"))
    due = first.installments.order_by("sequence").first().due_date
    in_range = rows_of(
        browser.get(f"/dashboard/installments.csv?due_from={due}&due_to={due}")
    )
    backwards = browser.get(
        f"/dashboard/installments.csv?due_from={due}&due_to=2000-01-01"
    )

    assert 'href="/dashboard/plans.csv?q=ORD-1"' in page
    assert 'data-testid="installments-csv"' in page
    assert [row["id"] for row in searched] == [first.public_id]
    assert {row["id"] for row in everything} == {first.public_id, second.public_id}
    assert in_range and {row["due_date"] for row in in_range} == {due.isoformat()}
    assert other.public_id not in {row["payment_plan_id"] for row in in_range}
    assert backwards.status_code == 400
    assert "The end date must not be before the start date." in (
        backwards.content.decode()
    )


def test_a_settlement_report_names_the_orders_it_paid_for(api, shop):
    owner, first, second, _ = shop
    set_payout_account(owner.merchant)
    owner.merchant.refresh_from_db()
    payout = payout_create(merchant=owner.merchant)
    path = (
        f"/api/v1/merchant/{owner.merchant.public_id}/payouts/"
        f"{payout.public_id}/settlement?format=csv"
    )

    rows = rows_of(api.get(path, **owner.headers))

    by_plan = {row["payment_plan_id"]: row for row in rows}
    assert set(by_plan) == {first.public_id, second.public_id}
    assert by_plan[first.public_id]["order_reference"] == "ORD-1"
    assert by_plan[second.public_id]["order_reference"] == "'" + INJECTED
    assert by_plan[first.public_id]["processor_reference"].startswith(
        f"{first.public_id}_d"
    )
    assert int(by_plan[first.public_id]["gross"]) == first.deposit_amount
    assert sum(int(row["net"]) for row in rows) == payout.amount
    assert "clean" in check_ledger()


@pytest.mark.parametrize(
    "query", ["due_from=2026-5-1", "due_to=2026-05-1", "due_from=20260501"]
)
@pytest.mark.parametrize("suffix", ["", "&format=csv"])
def test_a_date_filter_not_written_yyyy_mm_dd_is_a_readable_400(
    api, shop, query, suffix
):
    owner = shop[0]
    field = query.split("=")[0]

    response = api.get(f"{INSTALLMENTS}?{query}{suffix}", **owner.headers)

    assert response.status_code == 400, response.content
    assert response.json()["errors"] == {
        field: ["Enter a date written YYYY-MM-DD, for example 2027-01-05."]
    }
