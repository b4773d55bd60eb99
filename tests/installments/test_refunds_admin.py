"""Staff read plan refunds in the admin (issue 16 item 6): read-only, with
their processor refunds (parts), the installments they reduced and the ledger
transactions their parts posted; 50 a page.

The plan of `plan_active`: 250,000 kobo, deposit 75,000 paid, installments
58,334 / 58,333 / 58,333 scheduled."""

import pytest

from installments.refunds.models import Refund, RefundPart
from installments.refunds.services import refund_create
from payments.ledger.models import LedgerTransaction

from .conftest import collect, installments_of, refund, sandbox_refunds_settle

pytestmark = pytest.mark.django_db

REFUNDS = "/admin/installments/refund/"


def change_url(made: Refund) -> str:
    return f"{REFUNDS}{made.pk}/change/"


def test_a_refund_shows_its_parts_reductions_and_ledger_transactions(
    admin_client, plan_active
):
    collect(installments_of(plan_active.plan)[0].due_date)
    refund(plan_active, 200_000, "Returned the phone")
    sandbox_refunds_settle()
    made = Refund.objects.get()

    listing = admin_client.get(REFUNDS)
    detail = admin_client.get(change_url(made))

    assert listing.status_code == 200 and made.public_id in listing.content.decode()
    page = detail.content.decode()
    assert detail.status_code == 200
    assert "Returned the phone" in page
    for part in RefundPart.objects.filter(refund=made):
        assert part.reference in page and part.collection_reference in page
    _, second, third = installments_of(plan_active.plan)
    assert str(second) in page and str(third) in page
    txns = LedgerTransaction.objects.filter(resource_id=made.public_id)
    assert {txn.kind for txn in txns} == {"refund", "refund_settled"}
    assert txns.count() == 4  # two parts, each requested and settled
    for txn in txns:
        assert f'href="/admin/payments/ledgertransaction/{txn.pk}/change/"' in page
    every = (
        "/admin/payments/ledgertransaction/"
        f"?resource_type=refund&amp;resource_id={made.public_id}"
    )
    assert every in page
    ledger = admin_client.get(every.replace("&amp;", "&"))
    assert ledger.status_code == 200
    assert all(txn.public_id in ledger.content.decode() for txn in txns)


def test_a_refund_that_moved_no_money_says_so(admin_client, plan_active):
    refund(plan_active, 1_000)

    page = admin_client.get(change_url(Refund.objects.get())).content.decode()

    assert "None: no money moved" in page


def test_refunds_cannot_be_added_changed_or_deleted_in_the_admin(
    admin_client, plan_active
):
    refund(plan_active, 1_000, "Kept")
    made = Refund.objects.get()

    page = admin_client.get(change_url(made)).content.decode()

    assert 'name="_save"' not in page
    assert admin_client.get(f"{REFUNDS}add/").status_code == 403
    assert admin_client.post(change_url(made), {"reason": "Changed"}).status_code == 403
    assert admin_client.post(f"{REFUNDS}{made.pk}/delete/").status_code == 403
    made.refresh_from_db()
    assert made.reason == "Kept"


def test_the_refunds_list_is_paginated_and_the_plan_links_its_refunds(
    admin_client, plan_active
):
    made = [
        refund_create(plan=plan_active.plan, amount=100, reason=f"r{n}").refund
        for n in range(51)
    ]

    first = admin_client.get(REFUNDS).content.decode()
    second = admin_client.get(REFUNDS, {"p": "2"}).content.decode()
    plan_page = admin_client.get(
        f"/admin/installments/paymentplan/{plan_active.plan.pk}/change/"
    ).content.decode()

    assert sum(refund.public_id in first for refund in made) == 50
    assert sum(refund.public_id in second for refund in made) == 1
    assert made[-1].public_id in plan_page
    assert f'href="{change_url(made[-1])}"' in plan_page
