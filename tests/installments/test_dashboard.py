"""The dashboard's plan pages: list with search and status filter, plan detail
with its installments (issue 8, DESIGN §12)."""

import re
from datetime import timedelta

import pytest
from django.utils import timezone

from installments.plans.models import Installment, PaymentPlan

from ..factories import CustomerFactory, MerchantFactory
from .conftest import make_active_plan

pytestmark = pytest.mark.django_db

PLANS = "/dashboard/plans/"


def plan_row(
    merchant, order_reference, status=PaymentPlan.Status.PENDING, customer=None
):
    """A plan as checkout leaves it before the deposit (no installments yet)."""
    return PaymentPlan.objects.create(
        merchant=merchant,
        customer=customer or CustomerFactory(),
        order_reference=order_reference,
        total_amount=250_000,
        deposit_amount=62_500,
        deposit_percent=25,
        tier="B",
        customer_score=500,
        schedule_type="monthly",
        installment_count=3,
        installment_amounts=[62_500, 62_500, 62_500],
        status=status,
    )


def shown_plan_ids(page: str) -> list[str]:
    return re.findall(r'data-plan-id="(plan_\w+)"', page)


def test_the_list_shows_the_merchants_plans_newest_first(dashboard_for, db):
    merchant = MerchantFactory()
    older = plan_row(merchant, "ORD-1")
    newer = plan_row(merchant, "ORD-2", PaymentPlan.Status.CANCELLED)
    plan_row(MerchantFactory(), "ORD-THEIRS")

    page = dashboard_for(merchant).get(PLANS).content.decode()

    assert shown_plan_ids(page) == [newer.public_id, older.public_id]
    assert "ORD-THEIRS" not in page
    assert "badge-cancelled" in page and "badge-pending" in page


def test_plans_are_searchable_by_order_reference(dashboard_for, db):
    merchant = MerchantFactory()
    chair = plan_row(merchant, "ORD-CHAIR-1001")
    plan_row(merchant, "ORD-TABLE-1002")
    client = dashboard_for(merchant)

    def shown(query):
        return shown_plan_ids(client.get(PLANS, {"q": query}).content.decode())

    assert shown("ORD-CHAIR-1001") == [chair.public_id]
    assert shown("chair") == [chair.public_id]  # any part, any case
    assert len(shown("ORD-")) == 2
    assert shown(chair.public_id) == [chair.public_id]
    page = client.get(PLANS, {"q": "ORD-SOFA"}).content.decode()
    assert "No plan matches this search." in page


def test_plans_are_filtered_by_status(dashboard_for, db):
    merchant = MerchantFactory()
    pending = plan_row(merchant, "ORD-1")
    cancelled = plan_row(merchant, "ORD-2", PaymentPlan.Status.CANCELLED)
    client = dashboard_for(merchant)

    def shown(query):
        return shown_plan_ids(client.get(PLANS, query).content.decode())

    assert shown({"status": "cancelled"}) == [cancelled.public_id]
    assert shown({"status": "pending"}) == [pending.public_id]
    assert shown({"status": "active"}) == []
    assert shown({"status": "pending", "q": "ORD-2"}) == []


def test_an_unknown_status_is_explained_next_to_its_field(dashboard_for, db):
    merchant = MerchantFactory()
    plan = plan_row(merchant, "ORD-1")

    response = dashboard_for(merchant).get(PLANS, {"status": "paid-ish"})

    page = response.content.decode()
    assert response.status_code == 200
    status_field = page[page.index('data-field="status"') :]
    assert "Select a valid choice." in status_field[: status_field.index("</div>")]
    assert shown_plan_ids(page) == [plan.public_id]


def test_the_list_is_paginated_and_the_pages_keep_the_search(dashboard_for, db):
    merchant = MerchantFactory()
    customer = CustomerFactory()
    plans = [plan_row(merchant, f"ORD-{n:02d}", customer=customer) for n in range(23)]
    plan_row(merchant, "OTHER-1", customer=customer)
    client = dashboard_for(merchant)

    first = client.get(PLANS, {"q": "ORD-"}).content.decode()
    second = client.get(PLANS, {"q": "ORD-", "page": "2"}).content.decode()

    newest_first = [plan.public_id for plan in reversed(plans)]
    assert shown_plan_ids(first) == newest_first[:20]
    assert shown_plan_ids(second) == newest_first[20:]
    assert 'href="?q=ORD-&amp;page=2"' in first
    assert "23 plans found." in first


def test_the_plan_page_shows_its_installments_states_amounts_and_due_dates(
    dashboard_for,
):
    setup = make_active_plan()
    plan = setup.plan
    installments = list(plan.installments.order_by("sequence"))
    failed = installments[0]
    Installment.objects.filter(pk=failed.pk).update(
        status=Installment.Status.FAILED, attempts=2, last_failure_reason="do_not_honor"
    )

    response = dashboard_for(setup.owner.merchant).get(f"{PLANS}{plan.public_id}/")

    page = response.content.decode()
    assert response.status_code == 200
    assert plan.order_reference in page
    assert 'data-testid="plan-status">Active<' in page
    for installment in installments:
        row = page[page.index(f'data-installment-id="{installment.public_id}"') :]
        row = row[: row.index("</tr>")]
        assert f"{installment.due_date:%-d %b %Y}" in row
        assert f"₦{installment.amount // 100:,}.{installment.amount % 100:02d}" in row
    failed_row = page[page.index(f'data-installment-id="{failed.public_id}"') :]
    failed_row = failed_row[: failed_row.index("</tr>")]
    assert "badge-failed" in failed_row
    assert "<td>2</td>" in failed_row
    assert "do_not_honor" in failed_row
    assert page.count("badge-scheduled") == 2
    assert 'data-testid="deposit-attempts"' in page
    assert "badge-succeeded" in page


def test_another_merchants_plan_is_not_found(dashboard_for, merchant_active):
    theirs = make_active_plan().plan
    client = dashboard_for(merchant_active)

    assert client.get(f"{PLANS}{theirs.public_id}/").status_code == 404
    assert client.get(f"{PLANS}plan_missing/").status_code == 404
    assert client.get(f"{PLANS}plan_%00/").status_code == 404
    assert shown_plan_ids(client.get(PLANS).content.decode()) == []


def next_payment_cell(page: str, plan) -> str:
    row = page[page.index(f'data-plan-id="{plan.public_id}"') :]
    row = row[: row.index("</tr>")]
    return row.split("<td")[6]


def next_payment_fact(page: str) -> str:
    fact = page[page.index("<dt>Next payment</dt>") :]
    return fact[: fact.index("</dd>")]


def test_a_next_payment_past_its_due_date_says_overdue(dashboard_for):
    """Issue 25 item 11: a date in the past is not shown as if it were coming."""
    setup = make_active_plan()
    plan = setup.plan
    first = plan.installments.order_by("sequence").first()
    past = timezone.localdate() - timedelta(days=3)
    Installment.objects.filter(pk=first.pk).update(
        status=Installment.Status.FAILED, due_date=past
    )
    client = dashboard_for(setup.owner.merchant)

    listed = next_payment_cell(client.get(PLANS).content.decode(), plan)
    shown = next_payment_fact(client.get(f"{PLANS}{plan.public_id}/").content.decode())

    for text in (listed, shown):
        assert f"{past:%-d %b %Y}" in text
        assert 'data-testid="next-due-note">Overdue<' in text


def test_a_next_payment_to_come_has_no_note(dashboard_for):
    setup = make_active_plan()
    client = dashboard_for(setup.owner.merchant)

    listed = next_payment_cell(client.get(PLANS).content.decode(), setup.plan)
    shown = next_payment_fact(
        client.get(f"{PLANS}{setup.plan.public_id}/").content.decode()
    )

    assert "next-due-note" not in listed + shown
    assert "₦" in listed and "₦" in shown


def test_a_defaulted_plans_next_payment_says_it_wont_be_collected(dashboard_for):
    setup = make_active_plan()
    plan = setup.plan
    installments = list(plan.installments.order_by("sequence"))
    past = timezone.localdate() - timedelta(days=20)
    Installment.objects.filter(pk=installments[0].pk).update(
        status=Installment.Status.DEFAULTED, due_date=past
    )
    PaymentPlan.objects.filter(pk=plan.pk).update(status=PaymentPlan.Status.DEFAULTED)
    client = dashboard_for(setup.owner.merchant)

    listed = next_payment_cell(client.get(PLANS).content.decode(), plan)
    shown = next_payment_fact(client.get(f"{PLANS}{plan.public_id}/").content.decode())

    for text in (listed, shown):
        assert f"{installments[1].due_date:%-d %b %Y}" in text
        assert 'data-testid="next-due-note">Won\'t be collected<' in text
        assert "Overdue" not in text


def test_an_installment_waiting_for_a_method_shows_what_is_still_owed(dashboard_for):
    """An `action_required` installment counts in Remaining, so its row says
    what it owes rather than "—"."""
    setup = make_active_plan()
    plan = setup.plan
    first = plan.installments.order_by("sequence").first()
    Installment.objects.filter(pk=first.pk).update(
        status=Installment.Status.ACTION_REQUIRED, amount_paid=1_000
    )

    page = dashboard_for(setup.owner.merchant).get(f"{PLANS}{plan.public_id}/")

    page = page.content.decode()
    row = page[page.index(f'data-installment-id="{first.public_id}"') :]
    owed = row[row.index('data-testid="owed"') :]
    owed = owed[: owed.index("</td>")]
    expected = first.amount - 1_000
    assert owed.endswith(f">₦{expected // 100:,}.{expected % 100:02d}")
    assert "—" not in owed
    assert "badge-action_required" in row[: row.index("</tr>")]
