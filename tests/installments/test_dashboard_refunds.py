"""The dashboard's refund and cancellation pages (issue 16 item 6, DESIGN §14):
a refund is typed in naira, previewed (the allocation, nothing moves), then
confirmed by a POST carrying its Idempotency-Key; a cancellation has a page
that says what stops. Refused requests are readable 4xx and change nothing.

The plan of `plan_active`: 250,000 kobo, deposit 75,000 paid, installments
58,334 / 58,333 / 58,333 scheduled."""

import html
import re

import pytest
from django.conf import settings
from django.test import Client

from installments.dashboard.selectors import refund_confirmation_key
from installments.plans.models import Installment, PaymentPlan
from installments.refunds.models import Refund
from payments.gateway.processors.sandbox.values import CARD_REFUNDS_FAIL
from payments.ledger.fees import fee_given_back
from payments.ledger.models import LedgerTransaction
from payments.models import SandboxRefund
from webhooks.models import Event

from ..dashboards import sign_in
from ..factories import MerchantFactory
from .conftest import (
    check_ledger,
    collect,
    installments_of,
    make_active_plan,
    refund,
    sandbox_refunds_settle,
)
from .refund_pages import PLANS, hidden_fields, preview, refund_url, text
from .refund_plans import plan_paid_with

pytestmark = pytest.mark.django_db


@pytest.fixture
def dashboard(plan_active):
    return sign_in(Client(), plan_active.owner.merchant)


def cancel_url(setup) -> str:
    return f"{PLANS}{setup.plan.public_id}/cancel/"


def plan_url(setup) -> str:
    return f"{PLANS}{setup.plan.public_id}/"


def snapshot(setup) -> dict:
    plan = PaymentPlan.objects.get(pk=setup.plan.pk)
    return {
        "plan": (plan.status, plan.amount_refunded),
        "installments": [(row.status, row.amount) for row in installments_of(plan)],
        "refunds": Refund.objects.count(),
        "ledger": LedgerTransaction.objects.count(),
        "events": Event.objects.count(),
        "processor refunds": SandboxRefund.objects.count(),
    }


def test_the_plan_page_offers_a_refund_up_to_what_is_refundable(dashboard, plan_active):
    page = dashboard.get(plan_url(plan_active))

    assert page.status_code == 200
    shown = text(page)
    # Nothing collected but the deposit: the unpaid 175,000 and the deposit.
    assert "Up to ₦2,500.00 can be refunded now." in shown
    assert 'data-testid="refund-form"' in page.content.decode()
    assert "No refunds yet." in shown
    assert f'href="{cancel_url(plan_active)}"' in page.content.decode()


def test_the_preview_shows_the_allocation_and_moves_nothing(dashboard, plan_active):
    first = installments_of(plan_active.plan)[0]
    collect(first.due_date)
    first.refresh_from_db()
    before = snapshot(plan_active)

    response = preview(dashboard, plan_active, amount="₦2,000.00")

    assert response.status_code == 200
    assert snapshot(plan_active) == before
    shown = text(response)
    assert "Confirm the refund of ₦2,000.00" in shown
    page = response.content.decode()
    # 116,666 off installments 3 then 2 (both cancelled), 83,334 in money:
    # all of installment 1's collection, then 25,000 of the deposit.
    reductions = page[page.index('data-testid="preview-reductions"') :]
    reductions = reductions[: reductions.index("</table>")]
    _, second, third = installments_of(plan_active.plan)
    assert reductions.index(third.public_id) < reductions.index(second.public_id)
    assert reductions.count("badge-cancelled") == 2
    parts = page[page.index('data-testid="preview-parts"') :]
    parts = parts[: parts.index("</table>")]
    deposit = f"{plan_active.plan.public_id}_d1"
    assert parts.index(first.processor_reference) < parts.index(deposit)
    assert "Installment 1 of 3" in parts and "Deposit" in parts
    fee_back = fee_given_back(remaining=58_334, refunded=58_334) + fee_given_back(
        remaining=75_000, refunded=25_000
    )
    assert "Off unpaid installments ₦1,166.66" in shown
    assert "Paid back to the customer ₦833.34" in shown
    from_wallet = 83_334 - fee_back
    assert f"Out of your wallet ₦{from_wallet // 100:,}.{from_wallet % 100:02d}" in (
        shown
    )
    fields = hidden_fields(response)
    assert fields["amount"] == "200000"
    assert fields["reason"] == "Returned the phone"
    assert 'name="csrfmiddlewaretoken"' in page


def test_confirming_creates_one_refund_and_shows_it_on_the_plan(dashboard, plan_active):
    confirm = hidden_fields(preview(dashboard, plan_active, amount="700"))

    response = dashboard.post(refund_url(plan_active), confirm)

    assert response.status_code == 303
    assert response["Location"] == f"{plan_url(plan_active)}#refunds"
    made = Refund.objects.get()
    assert (made.amount, made.reason, made.status) == (
        70_000,
        "Returned the phone",
        "processed",
    )
    page = dashboard.get(response["Location"])
    shown = text(page)
    assert f"Refund {made.public_id} of ₦700.00 created" in shown
    row = page.content.decode()
    row = row[row.index(f'data-refund-id="{made.public_id}"') :]
    row = row[: row.index("</tr>")]
    assert "Processed" in row and "off unpaid installments" in row
    # The installments show what they were and what is still owed.
    third = installments_of(plan_active.plan)[2]
    line = page.content.decode()
    line = line[line.index(f'data-installment-id="{third.public_id}"') :]
    line = line[: line.index("</tr>")]
    assert "₦583.33" in line and "Cancelled" in line
    assert "Taken off in full by a refund" in line
    check_ledger()


def test_a_money_refund_lists_its_parts_and_their_statuses(dashboard, plan_active):
    first = installments_of(plan_active.plan)[0]
    collect(first.due_date)
    first.refresh_from_db()
    confirm = hidden_fields(preview(dashboard, plan_active, amount="2000"))

    response = dashboard.post(refund_url(plan_active), confirm, follow=True)

    made = Refund.objects.get()
    assert made.status == "pending"
    page = response.content.decode()
    row = page[page.index(f'data-refund-id="{made.public_id}"') :]
    row = row[: row.index("</tr>")]
    assert f'data-part="{made.public_id}_1"' in row
    assert f'data-part="{made.public_id}_2"' in row
    assert first.processor_reference in row
    assert "badge-pending" in row
    assert "₦833.34 is on its way back to the customer" in text(response)
    check_ledger()


def test_a_double_submit_creates_one_refund(dashboard, plan_active):
    confirm = hidden_fields(preview(dashboard, plan_active, amount="700"))

    first = dashboard.post(refund_url(plan_active), confirm)
    second = dashboard.post(refund_url(plan_active), confirm)

    assert (first.status_code, second.status_code) == (303, 303)
    assert Refund.objects.count() == 1
    assert PaymentPlan.objects.get(pk=plan_active.plan.pk).amount_refunded == 70_000
    shown = text(dashboard.get(second["Location"]))
    assert "nothing more was refunded" in shown


def test_the_same_refund_previewed_again_has_the_same_key_until_it_exists(
    plan_active,
):
    plan = plan_active.plan
    key = refund_confirmation_key(plan, 70_000, "Returned")

    assert refund_confirmation_key(plan, 70_000, "Returned") == key
    assert refund_confirmation_key(plan, 70_001, "Returned") != key
    assert refund_confirmation_key(plan, 70_000, "Broken") != key
    refund(plan_active, 100)
    assert refund_confirmation_key(plan, 70_000, "Returned") != key


def test_another_merchants_plan_is_not_found_and_unchanged(plan_active):
    stranger = sign_in(Client(), MerchantFactory())
    before = snapshot(plan_active)
    key = refund_confirmation_key(plan_active.plan, 100, "x")

    assert stranger.get(refund_url(plan_active)).status_code == 404
    assert preview(stranger, plan_active).status_code == 404
    confirm = {"amount": "100", "reason": "x", "key": str(key)}
    assert stranger.post(refund_url(plan_active), confirm).status_code == 404
    assert stranger.get(cancel_url(plan_active)).status_code == 404
    assert stranger.post(cancel_url(plan_active), {"reason": "x"}).status_code == 404
    assert snapshot(plan_active) == before


@pytest.mark.parametrize(
    ("amount", "reason", "message"),
    [
        ("abc", "Returned", "Enter the amount in naira"),
        ("12.345", "Returned", "Enter the amount in naira"),
        ("0", "Returned", "Enter an amount from ₦0.01"),
        ("20,000,000", "Returned", "Enter an amount from ₦0.01"),
        ("100", "", "This field is required."),
        ("100", "x" * 256, "at most 255 characters"),
    ],
)
def test_a_malformed_refund_is_explained_next_to_its_field(
    dashboard, plan_active, amount, reason, message
):
    before = snapshot(plan_active)

    response = preview(dashboard, plan_active, amount=amount, reason=reason)

    assert response.status_code == 400
    assert message in text(response)
    assert 'data-testid="refund-preview"' not in response.content.decode()
    assert snapshot(plan_active) == before


def test_a_refund_past_what_is_refundable_is_422_readable_and_changes_nothing(
    dashboard, plan_active
):
    refund(plan_active, 100_000)
    confirm = hidden_fields(preview(dashboard, plan_active, amount="1,500"))
    refund(plan_active, 100)  # meanwhile, through the API
    before = snapshot(plan_active)

    previewed = preview(dashboard, plan_active, amount="1,500")
    confirmed = dashboard.post(refund_url(plan_active), confirm)

    for response in (previewed, confirmed):
        assert response.status_code == 422
        assert "at most ₦1,499.00 now" in text(response)
        assert 'role="alert"' in response.content.decode()
    assert snapshot(plan_active) == before


def test_a_refund_that_needs_an_installment_being_charged_is_409_and_changes_nothing(
    dashboard, plan_active
):
    confirm = hidden_fields(preview(dashboard, plan_active, amount="100"))
    last = installments_of(plan_active.plan)[2]
    Installment.objects.filter(pk=last.pk).update(status="processing")
    before = snapshot(plan_active)

    previewed = preview(dashboard, plan_active, amount="100")
    confirmed = dashboard.post(refund_url(plan_active), confirm)

    for response in (previewed, confirmed):
        assert response.status_code == 409
        assert "Installment 3 is being charged right now" in text(response)
    assert snapshot(plan_active) == before


def test_a_tampered_confirmation_is_a_400_and_changes_nothing(dashboard, plan_active):
    confirm = hidden_fields(preview(dashboard, plan_active, amount="100"))
    before = snapshot(plan_active)

    for broken in ({"key": "not-a-uuid"}, {"amount": "-5"}, {"reason": ""}):
        response = dashboard.post(refund_url(plan_active), confirm | broken)
        assert response.status_code == 400
        assert "enter the refund again" in text(response)
    assert snapshot(plan_active) == before


def test_the_refund_and_cancel_forms_need_the_csrf_token(dashboard, plan_active):
    dashboard.handler.enforce_csrf_checks = True
    previewed = preview(dashboard, plan_active, amount="100")
    confirm = hidden_fields(previewed)
    token = confirm.pop("csrfmiddlewaretoken")
    before = snapshot(plan_active)

    assert dashboard.post(refund_url(plan_active), confirm).status_code == 403
    assert dashboard.post(cancel_url(plan_active), {"reason": "x"}).status_code == 403
    assert snapshot(plan_active) == before
    with_token = confirm | {"csrfmiddlewaretoken": token}
    assert dashboard.post(refund_url(plan_active), with_token).status_code == 303
    assert Refund.objects.count() == 1


def test_the_plans_refunds_are_paginated_newest_first(dashboard, plan_active):
    made = [refund(plan_active, 100).json()["data"]["id"] for _ in range(12)]

    first = dashboard.get(plan_url(plan_active)).content.decode()
    second = dashboard.get(plan_url(plan_active), {"refunds_page": "2"})

    newest_first = list(reversed(made))
    assert re.findall(r'data-refund-id="(rf_\w+)"', first) == newest_first[:10]
    assert (
        re.findall(r'data-refund-id="(rf_\w+)"', second.content.decode())
        == newest_first[10:]
    )
    assert 'href="?refunds_page=2"' in first


# --- cancellation ---------------------------------------------------------------


def test_the_cancel_page_says_what_stops_and_cancelling_stops_it(
    dashboard, plan_active
):
    page = dashboard.get(cancel_url(plan_active))

    assert page.status_code == 200
    shown = text(page)
    assert "3 installments (₦1,750.00) will never be collected" in shown
    assert "Nothing is refunded." in shown
    assert PaymentPlan.objects.get(pk=plan_active.plan.pk).status == "active"

    response = dashboard.post(cancel_url(plan_active), {"reason": "Order cancelled"})

    assert response.status_code == 303
    assert response["Location"] == plan_url(plan_active)
    plan = PaymentPlan.objects.get(pk=plan_active.plan.pk)
    assert (plan.status, plan.cancellation_reason) == ("cancelled", "Order cancelled")
    assert [row.status for row in installments_of(plan)] == ["cancelled"] * 3
    assert Refund.objects.count() == 0
    after = dashboard.get(plan_url(plan_active))
    shown = text(after)
    assert f"Plan {plan.order_reference} cancelled" in shown
    assert "Order cancelled" in shown
    assert after.content.decode().count("badge-cancelled") == 4  # plan + 3
    assert "not collected" in shown
    check_ledger()


def test_the_irreversible_cancel_button_is_red_not_the_green_of_a_step_forward(
    dashboard, plan_active
):
    """Issue 25 item 11: "Yes, cancel the plan" was a primary (green) button."""
    page = dashboard.get(cancel_url(plan_active)).content.decode()

    button = re.search(r"<button [^>]*>Yes, cancel the plan</button>", page).group(0)
    assert "button-danger" in button and "button-primary" not in button
    css = (settings.BASE_DIR / "static" / "css" / "dashboard.css").read_text()
    rule = re.search(r"\.button-danger \{([^}]*)\}", css).group(1)
    assert "background: var(--danger)" in rule


def test_a_double_submitted_cancel_cancels_once(dashboard, plan_active):
    first = dashboard.post(cancel_url(plan_active), {"reason": "Order cancelled"})
    second = dashboard.post(cancel_url(plan_active), {"reason": "Order cancelled"})

    assert (first.status_code, second.status_code) == (303, 303)
    merchant = plan_active.owner.merchant
    events = Event.objects.filter(
        merchant=merchant, event_type="payment_plan.cancelled"
    )
    assert events.count() == 1
    assert "This plan is cancelled." in text(dashboard.get(second["Location"]))


def test_a_plan_that_cannot_be_cancelled_says_why_and_is_unchanged(
    dashboard, plan_active
):
    first = installments_of(plan_active.plan)[0]
    Installment.objects.filter(pk=first.pk).update(status="processing")
    before = snapshot(plan_active)

    busy = dashboard.post(cancel_url(plan_active), {"reason": "Order cancelled"})

    assert busy.status_code == 409
    assert "Installment 1 is being charged right now" in text(busy)
    assert snapshot(plan_active) == before
    Installment.objects.filter(pk=first.pk).update(status="scheduled")
    for row in installments_of(plan_active.plan):
        collect(row.due_date)
    assert PaymentPlan.objects.get(pk=plan_active.plan.pk).status == "completed"
    before = snapshot(plan_active)

    page = dashboard.get(cancel_url(plan_active))
    done = dashboard.post(cancel_url(plan_active), {"reason": "Order cancelled"})

    assert "only an active or defaulted plan can be cancelled" in text(page)
    assert "Yes, cancel the plan" not in page.content.decode()
    assert done.status_code == 409
    assert "only an active or defaulted plan can be cancelled" in text(done)
    assert snapshot(plan_active) == before


def test_a_cancel_without_a_reason_is_a_400(dashboard, plan_active):
    before = snapshot(plan_active)

    response = dashboard.post(cancel_url(plan_active), {"reason": " "})

    assert response.status_code == 400
    assert "This field is required." in text(response)
    assert snapshot(plan_active) == before


def test_a_second_plan_is_refunded_on_its_own(dashboard, plan_active):
    other = make_active_plan(
        plan_active.owner, email="bola@mail.example.com", order_reference="O-2"
    )
    confirm = hidden_fields(preview(dashboard, other, amount="100"))

    dashboard.post(refund_url(other), confirm)

    assert list(Refund.objects.values_list("plan_id", flat=True)) == [other.plan.pk]
    assert "No refunds yet." in text(dashboard.get(plan_url(plan_active)))


def refund_row(page: str, refund_id: str) -> str:
    row = page[page.index(f'data-refund-id="{refund_id}"') :]
    return row[: row.index("</tr>")]


def test_a_failed_refund_says_what_came_off_what_failed_and_is_refundable_again(db):
    """Issue 25 item 1: ₦1,500 on a plan paid with the refunds-fail card takes
    ₦1,166.66 off the unpaid installments and fails to pay back ₦333.34; the
    page says so, not that ₦1,500 was refunded."""
    setup = plan_paid_with(CARD_REFUNDS_FAIL)
    first = installments_of(setup.plan)[0]
    collect(first.due_date)
    first.refresh_from_db()
    client = sign_in(Client(), setup.owner.merchant)
    confirm = hidden_fields(preview(client, setup, amount="1500"))

    response = client.post(refund_url(setup), confirm, follow=True)

    made = Refund.objects.get()
    assert (made.status, made.amount, made.amount_failed) == ("failed", 116_666, 33_334)
    shown = text(response)
    assert (
        f"Refund {made.public_id} of ₦1,500.00 created: ₦1,166.66 taken off the "
        "unpaid installments; ₦333.34 could not be paid back: it is back in your "
        "wallet and can be refunded again."
    ) in shown
    row = text_of(refund_row(response.content.decode(), made.public_id))
    assert "₦1,166.66 of ₦1,500.00 asked" in row
    assert "₦1,166.66 off unpaid installments" in row
    assert (
        "₦333.34 failed to go back: it is back in your wallet and can be refunded again"
    ) in row
    assert "paid back to the customer" not in row
    assert f"₦333.34 against {first.processor_reference} Failed" in row
    page = response.content.decode()
    assert 'data-testid="plan-refunded">₦1,166.66</span></dd>' in page
    # The installment's 583.34 and the deposit's 750.00 can be refunded again.
    assert "Up to ₦1,333.34 can be refunded now." in shown
    check_ledger()


def test_a_pending_refund_says_its_money_is_on_its_way(dashboard, plan_active):
    first = installments_of(plan_active.plan)[0]
    collect(first.due_date)
    made = refund(plan_active, 200_000).json()["data"]

    page = dashboard.get(plan_url(plan_active))

    row = text_of(refund_row(page.content.decode(), made["id"]))
    assert "₦833.34 on its way back to the customer" in row
    assert "asked" not in row and "failed" not in row
    assert "Refunded ₦2,000.00 (₦833.34 of it on its way)" in text(page)

    sandbox_refunds_settle()
    page = dashboard.get(plan_url(plan_active))

    row = text_of(refund_row(page.content.decode(), made["id"]))
    assert "₦833.34 paid back to the customer" in row
    assert "on its way" not in text(page)
    check_ledger()


def text_of(fragment: str) -> str:
    page = re.sub(r"<[^>]+>", " ", fragment)
    return re.sub(r"\s+", " ", html.unescape(page)).strip()
