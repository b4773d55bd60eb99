"""Rescheduling (DESIGN section 15): `POST /api/v1/payment-plans/{id}/installments/
{id}/reschedule {due_date}`. A customer moves one unpaid installment, not the
last, to a later working day within their merchant's limits; the merchant moves
any unpaid one; nobody moves one onto or past the next installment's date. Only
the due date moves: the engine collects on the new date, never the old one."""

from datetime import date, timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from installments.collection import collect_due
from installments.collection.claims import claim_now
from installments.plans.models import Installment, PaymentPlan
from installments.plans.rules import is_working_day
from installments.plans.scores import customer_score_refresh
from installments.reschedules.models import Reschedule
from payments.models import Customer
from webhooks.models import Event

from ..conftest import customer_jwt
from .conftest import (
    cancel,
    charges_for,
    check_ledger,
    event_data,
    installments_of,
    make_active_plan,
)
from .reschedule_days import FIRST, SECOND, THIRD, TODAY, lagos, on

pytestmark = pytest.mark.django_db


@pytest.fixture
def setup(db):
    with on(TODAY):
        made = make_active_plan()
        assert [row.due_date for row in installments_of(made.plan)] == [
            FIRST,
            SECOND,
            THIRD,
        ]
        yield made


def move(setup, installment, due_date, client=None):
    """The plan's customer (their JWT) asks for the move; `client` another caller."""
    return (client or setup.shopper.client).post(
        f"{setup.url}/installments/{installment.public_id}/reschedule",
        {"due_date": str(due_date)},
        format="json",
    )


def signed_in(setup) -> APIClient:
    """The plan's customer with a token issued now (theirs lasts 15 minutes)."""
    token = customer_jwt(setup.shopper.customer)
    return APIClient(headers={"Authorization": f"Bearer {token}"})


def merchant(setup) -> APIClient:
    return APIClient(
        headers={"Authorization": setup.owner.headers["HTTP_AUTHORIZATION"]}
    )


def nth(setup, n: int) -> Installment:
    return installments_of(setup.plan)[n - 1]


def state(setup) -> list[tuple]:
    """Everything a refused move must leave as it was."""
    return [
        (row.due_date, row.next_attempt_at, row.amount, row.status, row.attempts)
        for row in installments_of(setup.plan)
    ]


def refused(response, status=422, code="reschedule_not_allowed") -> str:
    assert response.status_code == status, response.content
    error = response.json()["error"]
    assert error["code"] == code
    return error["message"]


def rescheduled_events(setup) -> list[dict]:
    return event_data(setup.owner.merchant, "payment_plan.rescheduled")


# --- the customer ---------------------------------------------------------------


def test_a_customer_moves_an_installment_a_week_later_and_only_its_date_moves(setup):
    before = state(setup)
    first = nth(setup, 1)

    response = move(setup, first, FIRST + timedelta(days=7))

    assert response.status_code == 200, response.content
    data = response.json()["data"]
    assert [row["due_date"] for row in data["installments"]] == [
        "2026-12-09",
        SECOND.isoformat(),
        THIRD.isoformat(),
    ]
    after = state(setup)
    assert after[0] == (
        date(2026, 12, 9),
        lagos(date(2026, 12, 9), 0),
        *before[0][2:],
    )
    assert after[1:] == before[1:]
    assert data["reschedules"] == [
        {
            "installment_id": first.public_id,
            "sequence": 1,
            "previous_due_date": "2026-12-02",
            "due_date": "2026-12-09",
            "rescheduled_by": "customer",
            "created_at": data["reschedules"][0]["created_at"],
        }
    ]
    assert data["customer_reschedules_left"] == 0
    assert data["amount_remaining"] == sum(row[2] for row in before)


def test_a_move_onto_or_past_the_next_installments_date_is_refused_and_changes_nothing(
    setup,
):
    merchant_ = setup.owner.merchant
    merchant_.reschedule_max_days = 60  # so only the order refuses the customer
    merchant_.save(update_fields=["reschedule_max_days"])
    before = state(setup)
    for due_date in (SECOND, SECOND + timedelta(days=1)):
        for client in (setup.shopper.client, merchant(setup)):
            message = refused(move(setup, nth(setup, 1), due_date, client))
            assert "next installment's due date (Monday 4 January 2027)" in message
    # The merchant's limits are not the customer's, but the order is everyone's.
    refused(move(setup, nth(setup, 2), THIRD, merchant(setup)))
    assert state(setup) == before
    assert not Reschedule.objects.exists()
    assert rescheduled_events(setup) == []


def test_a_customer_moves_a_due_date_as_many_times_as_the_merchant_allows(setup):
    assert move(setup, nth(setup, 1), date(2026, 12, 3)).status_code == 200

    message = refused(move(setup, nth(setup, 2), date(2027, 1, 5)))
    assert "already moved a due date of this plan once" in message
    assert nth(setup, 2).due_date == SECOND

    merchant_ = setup.owner.merchant
    merchant_.customer_reschedules_allowed = 2
    merchant_.save(update_fields=["customer_reschedules_allowed"])
    assert move(setup, nth(setup, 2), date(2027, 1, 5)).status_code == 200
    refused(move(setup, nth(setup, 1), date(2026, 12, 4)))


def test_a_merchant_that_allows_none_refuses_every_customer_move(setup):
    merchant_ = setup.owner.merchant
    merchant_.customer_reschedules_allowed = 0
    merchant_.save(update_fields=["customer_reschedules_allowed"])

    message = refused(move(setup, nth(setup, 1), date(2026, 12, 3)))

    assert "does not let customers move due dates" in message


def test_a_customer_moves_a_date_at_most_the_merchants_max_days_later(setup):
    latest = FIRST + timedelta(days=14)  # Wednesday 16 December
    message = refused(move(setup, nth(setup, 1), latest + timedelta(days=1)))
    assert "at most 14 days later" in message
    assert "Wednesday 16 December 2026 at the latest" in message

    assert move(setup, nth(setup, 1), latest).status_code == 200


def test_the_max_days_are_the_merchants_setting(setup):
    merchant_ = setup.owner.merchant
    merchant_.reschedule_max_days = 3
    merchant_.save(update_fields=["reschedule_max_days"])

    refused(move(setup, nth(setup, 1), FIRST + timedelta(days=6)))
    assert move(setup, nth(setup, 1), FIRST + timedelta(days=2)).status_code == 200


def test_a_customer_cannot_move_the_last_installment(setup):
    message = refused(move(setup, nth(setup, 3), THIRD + timedelta(days=1)))

    assert "Installment 3 is the plan's last" in message
    assert nth(setup, 3).due_date == THIRD


@pytest.mark.parametrize("days", [-3, 0])
def test_a_date_in_the_past_or_today_is_refused(setup, days):
    refused(move(setup, nth(setup, 1), TODAY + timedelta(days=days)))


def test_a_date_earlier_than_the_installments_is_refused(setup):
    message = refused(move(setup, nth(setup, 2), FIRST + timedelta(days=1)))

    assert "can only move later" in message


def test_a_weekend_or_holiday_is_refused_naming_the_next_working_day(setup):
    saturday = date(2026, 12, 5)
    message = refused(move(setup, nth(setup, 1), saturday))
    assert message.startswith("Saturday 5 December 2026 is not a working day")
    assert "choose Monday 7 December 2026" in message

    merchant_ = setup.owner.merchant
    merchant_.reschedule_max_days = 30
    merchant_.save(update_fields=["reschedule_max_days"])
    christmas = date(2026, 12, 25)
    assert not is_working_day(christmas)
    message = refused(move(setup, nth(setup, 1), christmas))
    assert "choose Tuesday 29 December 2026" in message


def test_paid_and_cancelled_installments_do_not_move(setup):
    with on(FIRST, 12):
        collect_due(on_date=FIRST)
    assert nth(setup, 1).status == "paid"
    message = refused(move(setup, nth(setup, 1), FIRST + timedelta(days=3)))
    assert "Installment 1 is paid" in message

    assert cancel(setup).status_code == 200
    message = refused(move(setup, nth(setup, 2), SECOND + timedelta(days=1)))
    assert "This plan is cancelled" in message


def test_an_installment_being_collected_is_a_409_and_nothing_changes(setup):
    claim_now(installment=nth(setup, 1), now=timezone.now())
    before = state(setup)

    for client in (setup.shopper.client, merchant(setup)):
        message = refused(
            move(setup, nth(setup, 1), date(2026, 12, 3), client),
            status=409,
            code="payment_in_progress",
        )
        assert "Installment 1 is being collected right now" in message
    assert state(setup) == before
    assert rescheduled_events(setup) == []


def test_another_customers_or_merchants_plan_is_a_404(setup):
    stranger = Customer.objects.create(
        email="eve@mail.example.com", first_name="Eve", last_name="X"
    )
    token = customer_jwt(stranger)
    client = APIClient(headers={"Authorization": f"Bearer {token}"})
    assert move(setup, nth(setup, 1), date(2026, 12, 3), client).status_code == 404
    response = setup.shopper.client.post(
        f"{setup.url}/installments/inst_nope/reschedule",
        {"due_date": "2026-12-03"},
        format="json",
    )
    assert response.status_code == 404


@pytest.mark.parametrize("body", [{}, {"due_date": "3 Dec"}, {"due_date": 20261203}])
def test_a_body_without_a_date_is_a_400(setup, body):
    response = setup.shopper.client.post(
        f"{setup.url}/installments/{nth(setup, 1).public_id}/reschedule",
        body,
        format="json",
    )
    assert response.status_code == 400
    assert "due_date" in response.json()["errors"]


# --- the merchant ---------------------------------------------------------------


def test_a_merchant_moves_any_unpaid_installment_without_the_customers_limits(setup):
    client = merchant(setup)
    # Further than 14 days, twice on the plan, and the last installment.
    assert move(setup, nth(setup, 1), date(2026, 12, 30), client).status_code == 200
    assert move(setup, nth(setup, 2), date(2027, 1, 20), client).status_code == 200
    response = move(setup, nth(setup, 3), date(2027, 4, 1), client)

    assert response.status_code == 200, response.content
    data = response.json()["data"]
    assert [row["due_date"] for row in data["installments"]] == [
        "2026-12-30",
        "2027-01-20",
        "2027-04-01",
    ]
    assert {row["rescheduled_by"] for row in data["reschedules"]} == {"merchant"}
    # The merchant's moves leave the customer theirs.
    assert data["customer_reschedules_left"] == 1
    assert move(setup, nth(setup, 1), date(2026, 12, 31)).status_code == 200


# --- what it announces, and what it never touches ---------------------------------


def test_the_move_is_announced_in_the_same_commit_with_the_dates_and_who_moved(setup):
    first = nth(setup, 1)
    assert move(setup, first, date(2026, 12, 9)).status_code == 200
    assert (
        move(setup, nth(setup, 2), date(2027, 1, 6), merchant(setup)).status_code == 200
    )

    plan = setup.plan
    customer, by_merchant = rescheduled_events(setup)
    assert customer == {
        "resourceType": "payment_plan",
        "resourceId": plan.public_id,
        "orderReference": plan.order_reference,
        "amountPaid": plan.deposit_amount,
        "amountRefunded": 0,
        "amountRefundPending": 0,
        "amountRemaining": plan.total_amount - plan.deposit_amount,
        "installmentId": first.public_id,
        "sequence": 1,
        "previousDueDate": "2026-12-02",
        "dueDate": "2026-12-09",
        "rescheduledBy": "customer",
    }
    assert by_merchant["rescheduledBy"] == "merchant"
    assert by_merchant["previousDueDate"] == "2027-01-04"
    # Each move wrote its row and its event together.
    assert (
        Reschedule.objects.count()
        == Event.objects.filter(event_type="payment_plan.rescheduled").count()
        == 2
    )


def test_a_move_never_changes_an_amount_or_the_customers_score(setup):
    customer = setup.shopper.customer
    score = customer_score_refresh(customer)
    amounts = [(row.amount, row.original_amount) for row in installments_of(setup.plan)]

    assert move(setup, nth(setup, 1), date(2026, 12, 9)).status_code == 200

    assert [
        (row.amount, row.original_amount) for row in installments_of(setup.plan)
    ] == amounts
    assert customer_score_refresh(Customer.objects.get(pk=customer.pk)) == score


# --- the engine -------------------------------------------------------------------


def test_the_engine_collects_on_the_new_date_and_not_on_the_old_one(setup):
    first = nth(setup, 1)
    new = date(2026, 12, 9)
    assert move(setup, first, new).status_code == 200

    for day in (FIRST, new - timedelta(days=1)):
        with on(day, 12):
            summary = collect_due(on_date=day)
        assert summary.claimed == 0
        assert charges_for(first).count() == 0
        assert nth(setup, 1).status == "scheduled"

    with on(new, 12):
        summary = collect_due(on_date=new)

    assert (summary.claimed, summary.tally.paid) == (1, 1)
    assert nth(setup, 1).status == "paid"
    assert [charge.reference for charge in charges_for(first)] == [
        f"{first.public_id}_a1"
    ]
    assert nth(setup, 2).status == "scheduled"
    check_ledger()


def test_a_failed_installment_moved_is_tried_on_its_new_date_with_its_attempts_kept(
    setup,
):
    from ..checkout.conftest import CARD_POOR
    from .failed_collections import only_card

    only_card(setup, CARD_POOR)
    with on(FIRST, 12):
        collect_due(on_date=FIRST)
    first = nth(setup, 1)
    assert (first.status, first.attempts) == ("failed", 1)
    retry = first.next_attempt_at
    assert retry == lagos(FIRST + timedelta(days=1), 10)

    with on(FIRST, 15):
        response = move(setup, first, date(2026, 12, 10), signed_in(setup))
        assert response.status_code == 200, response.content
        assert nth(setup, 1).next_attempt_at == lagos(date(2026, 12, 10), 0)

    with on(FIRST + timedelta(days=1), 12):
        assert collect_due(on_date=FIRST + timedelta(days=1)).claimed == 0
    with on(date(2026, 12, 10), 12):
        assert collect_due(on_date=date(2026, 12, 10)).claimed == 1
    first = nth(setup, 1)
    # The second attempt, failed again: the next retry follows the new date.
    assert (first.status, first.attempts) == ("failed", 2)
    assert first.next_attempt_at == lagos(date(2026, 12, 13), 10)
    check_ledger()


def test_a_plan_that_is_not_active_has_no_move(setup):
    PaymentPlan.objects.filter(pk=setup.plan.pk).update(status="defaulted")

    message = refused(move(setup, nth(setup, 1), date(2026, 12, 3), merchant(setup)))

    assert "This plan is defaulted" in message


def test_an_installment_waiting_for_a_method_is_not_tried_before_its_new_date(setup):
    from payments.gateway.processors.sandbox.values import CARD_EXPIRES_THIS_MONTH

    from ..payments.conftest import add_card as add_card_now
    from ..payments.conftest import sign_in
    from .failed_collections import only_card

    only_card(setup, CARD_EXPIRES_THIS_MONTH)  # expires at the end of November
    with on(FIRST, 12):
        collect_due(on_date=FIRST)
    assert nth(setup, 1).status == "action_required"
    new = date(2026, 12, 9)

    with on(FIRST, 15):
        response = move(setup, nth(setup, 1), new, signed_in(setup))
        assert response.status_code == 200, response.content
    assert nth(setup, 1).next_attempt_at == lagos(new + timedelta(days=7), 10)

    day_after = FIRST + timedelta(days=1)
    with on(day_after, 12):
        add_card_now(sign_in(setup.shopper.customer))
        # A method came, but the customer moved the date: not before it.
        assert collect_due(on_date=day_after).claimed == 0
    with on(new, 1):
        summary = collect_due(on_date=new)
    assert summary.tally.paid == 1
    assert nth(setup, 1).status == "paid"
    check_ledger()


def test_a_reminder_goes_out_again_for_the_new_date(setup):
    from django.core import mail

    from installments.notifications import services as notifications

    with on(FIRST - timedelta(days=3)):
        assert notifications.reminders_send().sent == 1
    with on(FIRST - timedelta(days=2)):
        response = move(setup, nth(setup, 1), date(2026, 12, 9), signed_in(setup))
        assert response.status_code == 200
    for day in (FIRST - timedelta(days=1), date(2026, 12, 5)):
        with on(day):
            assert notifications.reminders_send().sent == 0
    with on(date(2026, 12, 6)):
        assert notifications.reminders_send().sent == 1
        assert notifications.reminders_send().sent == 0  # a rerun sends nothing

    first, second = mail.outbox
    assert "due on Wednesday 02 December 2026" in first.subject
    assert "due on Wednesday 09 December 2026" in second.subject


def test_the_receiver_gets_the_move_signed_with_the_documented_payload(receiver):
    import hashlib
    import hmac
    import json
    import re
    from pathlib import Path

    from webhooks.delivery import deliver_due

    from ..conftest import make_merchant_with_key
    from ..webhooks.conftest import SECRET

    with on(TODAY):
        owner = make_merchant_with_key(webhook_url=receiver.url, webhook_secret=SECRET)
        setup = make_active_plan(owner)
        assert move(setup, nth(setup, 1), date(2026, 12, 9)).status_code == 200
        deliver_due()

    [received] = [
        item
        for item in receiver.received
        if json.loads(item.body)["eventType"] == "payment_plan.rescheduled"
    ]
    expected = hmac.new(SECRET.encode(), received.body, hashlib.sha256).hexdigest()
    assert hmac.compare_digest(received.headers["x-service-signature"], expected)
    data = json.loads(received.body)["data"]
    assert (data["previousDueDate"], data["dueDate"]) == ("2026-12-02", "2026-12-09")
    doc = (Path(__file__).resolve().parents[2] / "docs" / "webhooks.md").read_text()
    [example] = re.findall(
        r"### `payment_plan\.rescheduled`\n\n```json\n(.*?)\n```", doc, re.S
    )
    assert set(json.loads(example)) == set(data)


def test_the_move_and_its_event_commit_together_or_not_at_all(setup, monkeypatch):
    from installments.reschedules import services

    def outbox_down(**kwargs):
        raise RuntimeError("the outbox is down")

    monkeypatch.setattr(services, "emit_events", outbox_down)
    before = state(setup)

    with pytest.raises(RuntimeError):
        services.installment_reschedule(
            plan=setup.plan,
            installment_id=nth(setup, 1).public_id,
            due_date=date(2026, 12, 9),
            by="customer",
        )

    assert state(setup) == before
    assert not Reschedule.objects.exists()


def test_the_docs_state_the_defaults_and_bounds_of_the_limits():
    from pathlib import Path

    from merchants.models import MAX_RESCHEDULE_DAYS, MAX_RESCHEDULES, Merchant

    docs = Path(__file__).resolve().parents[2] / "docs"
    fields = {field.name: field for field in Merchant._meta.fields}
    allowed = fields["customer_reschedules_allowed"].default
    max_days = fields["reschedule_max_days"].default
    auto_debit = " ".join((docs / "auto-debit.md").read_text().split())
    assert f"default once per plan, and `reschedule_max_days`, default {max_days}" in (
        auto_debit
    )
    assert allowed == 1
    api = " ".join((docs / "api.md").read_text().split())
    assert f"`customer_reschedules_allowed` (0-{MAX_RESCHEDULES}, default 1" in api
    assert f"`reschedule_max_days` (1-{MAX_RESCHEDULE_DAYS}, default {max_days}" in api


@pytest.mark.parametrize("written", ["2026-12-3", "2026-12-03T00:00", "20261203"])
def test_a_due_date_not_written_yyyy_mm_dd_is_a_readable_400(setup, written):
    """Only ISO `YYYY-MM-DD` (the contract's dates): `2026-12-3` is refused, not
    guessed, and the same day written right is accepted."""
    before = state(setup)
    with on(TODAY):
        refused = move(setup, nth(setup, 1), written)
        assert state(setup) == before
        accepted = move(setup, nth(setup, 1), date(2026, 12, 3))

    assert refused.status_code == 400, refused.content
    assert refused.json() == {
        "detail": "Invalid input. due_date: Enter a date written YYYY-MM-DD, for "
        "example 2027-01-05.",
        "errors": {
            "due_date": ["Enter a date written YYYY-MM-DD, for example 2027-01-05."]
        },
    }
    assert accepted.status_code == 200, accepted.content
