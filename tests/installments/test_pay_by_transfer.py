"""Paying early by bank transfer or USSD (DESIGN section 17): `POST
/api/v1/payment-plans/{id}/pay` with `channel` claims the installments like any
early payment and answers 202 with the account or code; the installments stay
`processing` until the processor's `charge.success` (re-verified) pays them or
the payment expires after 30 minutes and puts everything back exactly as a
declined early payment does, with `payment.failed` `expired` once."""

from datetime import timedelta

import pytest
import time_machine
from django.utils import timezone
from rest_framework.test import APIClient

from installments import tasks
from installments.early import confirmations
from installments.early.models import EarlyPayment
from installments.plans.models import Installment
from payments.gateway.errors import ProcessorError, ProcessorRefused
from payments.gateway.hooks import ConfirmedCharge
from payments.gateway.processors.sandbox import SandboxProcessor
from payments.models import LedgerTransaction
from webhooks.models import Event

from ..conftest import make_merchant_with_key
from .conftest import (
    charges_for,
    check_ledger,
    collect,
    installments_of,
    make_active_plan,
    refund,
)

pytestmark = pytest.mark.django_db

PAYMENT_KEYS = {
    "id",
    "payment_plan_id",
    "livemode",
    "kind",
    "installment_ids",
    "status",
    "channel",
    "amount",
    "currency",
    "reference",
    "expires_at",
    "transfer",
    "ussd",
    "display_text",
    "failure_reason",
    "created_at",
    "settled_at",
}


def pay(setup, **body):
    return setup.shopper.post(f"{setup.url}/pay", body)


def pay_by_transfer(setup, installment=None) -> dict:
    what = (
        {"installment_id": installment.public_id} if installment else {"payoff": True}
    )
    response = pay(setup, channel="bank_transfer", **what)
    assert response.status_code == 202, response.content
    return response.json()["data"]["payment"]


def sandbox(setup, payment_id: str, action: str, key=None, **body):
    return APIClient().post(
        f"/api/v1/sandbox/payments/{payment_id}/{action}",
        body,
        format="json",
        **(key or setup.owner).headers,
    )


def snapshots(plan) -> list[tuple]:
    return [
        (
            row.status,
            row.attempts,
            row.next_attempt_at,
            row.last_failure_reason,
            row.processor_reference,
        )
        for row in installments_of(plan)
    ]


def events_of(plan, event_type: str) -> list[dict]:
    return [
        event.data
        for event in Event.objects.filter(
            merchant=plan.merchant, event_type=event_type
        ).order_by("id")
    ]


def payment_events(plan) -> list[str]:
    return list(
        Event.objects.filter(
            merchant=plan.merchant,
            event_type__in=(
                "payment.failed",
                "installment.paid",
                "payment_plan.installment_paid",
                "payment_plan.completed",
            ),
        ).values_list("event_type", flat=True)
    )


# --- the 202 and reading it --------------------------------------------------


def test_a_bank_transfer_answers_202_with_the_account_and_holds_the_installment(
    plan_active,
):
    setup = plan_active
    first, second, third = installments_of(setup.plan)
    before = timezone.now()

    payment = pay_by_transfer(setup, second)

    assert set(payment) == PAYMENT_KEYS
    assert payment["id"].startswith("pay_")
    assert (payment["status"], payment["channel"], payment["kind"]) == (
        "pending",
        "bank_transfer",
        "installment",
    )
    assert (payment["amount"], payment["currency"]) == (second.amount, "NGN")
    assert payment["installment_ids"] == [second.public_id]
    assert payment["payment_plan_id"] == setup.plan.public_id
    assert payment["reference"] == f"{second.public_id}_p1"
    transfer = payment["transfer"]
    assert set(transfer) == {"bank_name", "account_number", "account_name"}
    assert len(transfer["account_number"]) == 10 and transfer["bank_name"]
    assert payment["ussd"] is None and payment["failure_reason"] is None
    row = EarlyPayment.objects.get()
    assert row.payment_method is None and row.expires_at == row.leased_until
    assert before + timedelta(minutes=30) <= row.expires_at
    assert row.expires_at <= timezone.now() + timedelta(minutes=30)
    assert payment["expires_at"].endswith("Z")
    # Held exactly like a claimed early payment, until it expires.
    second.refresh_from_db()
    assert (second.status, second.attempts) == ("processing", 1)
    assert second.next_attempt_at == row.expires_at
    assert [first.status, third.status] == ["scheduled", "scheduled"]
    # Nothing is announced while it waits for the customer.
    assert payment_events(setup.plan) == []
    # The plan's customer and its merchant read it the same.
    url = f"{setup.url}/payments/{payment['id']}"
    for client, headers in (
        (setup.shopper, {}),
        (APIClient(), setup.owner.headers),
    ):
        read = client.get(url, **headers)
        assert read.status_code == 200, read.content
        assert read.json()["data"]["payment"] == payment


def test_ussd_pays_off_the_plan_with_a_code_to_dial(plan_active):
    setup = plan_active
    rows = installments_of(setup.plan)

    response = pay(setup, payoff=True, channel="ussd", bank="737")

    assert response.status_code == 202, response.content
    payment = response.json()["data"]["payment"]
    assert (payment["channel"], payment["kind"]) == ("ussd", "payoff")
    assert payment["amount"] == sum(row.amount for row in rows)
    assert payment["installment_ids"] == [row.public_id for row in rows]
    assert payment["transfer"] is None
    assert payment["ussd"]["code"].startswith("*737*")
    assert payment["reference"] == f"{setup.plan.public_id}_po1"
    assert {row.status for row in installments_of(setup.plan)} == {"processing"}


def test_another_merchant_and_another_customer_cannot_read_it(plan_active):
    setup = plan_active
    payment = pay_by_transfer(setup)
    other = make_active_plan(email="bola@mail.example.com")
    url = f"{setup.url}/payments/{payment['id']}"

    assert APIClient().get(url, **other.owner.headers).status_code == 404
    assert other.shopper.get(url).status_code == 404
    # A payment id of another plan on one's own plan is a 404 too.
    mine = f"{other.url}/payments/{payment['id']}"
    assert other.shopper.get(mine).status_code == 404
    assert other.shopper.get(f"{other.url}/payments/pay_nothing").status_code == 404


def test_a_card_early_payment_is_read_in_the_same_shape(plan_active):
    setup = plan_active
    first = installments_of(setup.plan)[0]
    assert pay(setup, installment_id=first.public_id).status_code == 200
    payment = EarlyPayment.objects.get()

    read = setup.shopper.get(f"{setup.url}/payments/{payment.public_id}")

    data = read.json()["data"]["payment"]
    assert set(data) == PAYMENT_KEYS
    assert (data["status"], data["channel"], data["expires_at"]) == (
        "succeeded",
        "card",
        None,
    )
    assert data["transfer"] is None and data["ussd"] is None


@pytest.mark.parametrize(
    "body, field",
    [
        ({"channel": "cash"}, "channel"),
        ({"channel": "card"}, "channel"),
        ({"channel": "ussd"}, "non_field_errors"),
        ({"channel": "ussd", "bank": "999"}, "bank"),
        ({"channel": "bank_transfer", "bank": "737"}, "non_field_errors"),
        ({"channel": "bank_transfer", "payment_method_id": "pm_x"}, "non_field_errors"),
        ({"channel": 7}, "channel"),
    ],
)
def test_a_wrong_channel_or_bank_is_a_clear_400_that_changes_nothing(
    plan_active, body, field
):
    setup = plan_active
    before = snapshots(setup.plan)

    response = pay(setup, payoff=True, **body)

    assert response.status_code == 400, response.content
    assert field in response.json()["errors"]
    assert response.json()["detail"]
    assert not EarlyPayment.objects.exists()
    assert snapshots(setup.plan) == before


def test_a_merchant_key_cannot_pay_by_transfer(plan_active):
    setup = plan_active
    response = APIClient().post(
        f"{setup.url}/pay",
        {"payoff": True, "channel": "bank_transfer"},
        format="json",
        **setup.owner.headers,
    )
    assert response.status_code == 403
    assert not EarlyPayment.objects.exists()


# --- the money lands ----------------------------------------------------------


def test_completing_it_pays_the_installment_once_with_its_channel(plan_active):
    setup = plan_active
    second = installments_of(setup.plan)[1]
    payment = pay_by_transfer(setup, second)

    done = sandbox(setup, payment["id"], "complete", amount=second.amount)

    assert done.status_code == 200, done.content
    answered = done.json()["data"]["payment"]
    assert (answered["status"], answered["settled_at"] is not None) == (
        "succeeded",
        True,
    )
    second.refresh_from_db()
    assert (second.status, second.attempts, second.processor_reference) == (
        "paid",
        1,
        payment["reference"],
    )
    for event_type in ("installment.paid", "payment_plan.installment_paid"):
        [paid] = events_of(setup.plan, event_type)
        assert (paid["resourceId"], paid["channel"], paid["amount"]) == (
            second.public_id,
            "bank_transfer",
            second.amount,
        )
    [collection] = LedgerTransaction.objects.filter(
        kind="collection", reference=second.public_id
    )
    assert collection.processor_reference == payment["reference"]
    # Completing again is refused and changes nothing.
    again = sandbox(setup, payment["id"], "complete")
    assert again.status_code == 409
    assert len(events_of(setup.plan, "installment.paid")) == 1
    assert "clean" in check_ledger()


def test_a_transfer_of_another_amount_is_refused_and_changes_nothing(plan_active):
    setup = plan_active
    first = installments_of(setup.plan)[0]
    payment = pay_by_transfer(setup, first)
    before = snapshots(setup.plan)

    refused = sandbox(setup, payment["id"], "complete", amount=first.amount - 100)

    assert refused.status_code == 422, refused.content
    assert refused.json()["error"]["code"] == "amount_mismatch"
    assert snapshots(setup.plan) == before
    assert EarlyPayment.objects.get().status == "processing"
    assert payment_events(setup.plan) == []
    assert not LedgerTransaction.objects.filter(reference=first.public_id).exists()


def test_charge_success_twice_applies_once(plan_active):
    setup = plan_active
    payment = pay_by_transfer(setup)
    row = EarlyPayment.objects.get()
    charge = ConfirmedCharge(
        reference=row.reference,
        amount=row.amount,
        currency="NGN",
        paid_at=timezone.now(),
        processor_id="1",
        gateway_response="Approved",
        source="webhook",
        channel="bank_transfer",
    )

    assert confirmations.early_payment_charge_confirm(charge)
    assert confirmations.early_payment_charge_confirm(charge)

    assert EarlyPayment.objects.get().status == "succeeded"
    assert {r.status for r in installments_of(setup.plan)} == {"paid"}
    assert len(events_of(setup.plan, "installment.paid")) == 3
    assert len(events_of(setup.plan, "payment_plan.completed")) == 1
    assert (
        LedgerTransaction.objects.filter(
            kind="collection", processor_reference=payment["reference"]
        ).count()
        == 1
    )
    assert "clean" in check_ledger()


def test_charge_success_for_another_amount_or_after_expiry_is_not_applied(
    plan_active, caplog
):
    setup = plan_active
    pay_by_transfer(setup)
    row = EarlyPayment.objects.get()
    before = snapshots(setup.plan)

    def charge(**fields):
        return ConfirmedCharge(
            **{
                "reference": row.reference,
                "amount": row.amount,
                "currency": "NGN",
                "paid_at": timezone.now(),
                "processor_id": "1",
                "gateway_response": "Approved",
                "source": "webhook",
                "channel": "bank_transfer",
                **fields,
            }
        )

    assert confirmations.early_payment_charge_confirm(charge(amount=row.amount + 1))
    late = row.expires_at + timedelta(seconds=1)
    assert confirmations.early_payment_charge_confirm(charge(paid_at=late))

    assert EarlyPayment.objects.get().status == "processing"
    assert snapshots(setup.plan) == before
    assert caplog.text.count("not recorded") == 2


# --- the time runs out ------------------------------------------------------------


def test_expiry_restores_every_installment_exactly_and_says_so_once(plan_active):
    setup = plan_active
    rows = installments_of(setup.plan)
    # A failed installment with its retry time and reason, to restore exactly.
    Installment.objects.filter(pk=rows[0].pk).update(
        status=Installment.Status.FAILED,
        attempts=2,
        last_failure_reason="insufficient_funds",
        next_attempt_at=timezone.now() + timedelta(days=2),
    )
    before = snapshots(setup.plan)
    payment = pay_by_transfer(setup)
    row = EarlyPayment.objects.get()

    with time_machine.travel(row.expires_at - timedelta(seconds=1), tick=False):
        assert tasks.expire_offline_payments() == 0
    with time_machine.travel(row.expires_at + timedelta(seconds=30), tick=False):
        assert tasks.expire_offline_payments() == 1
        assert tasks.expire_offline_payments() == 0

    assert snapshots(setup.plan) == before
    row.refresh_from_db()
    assert (row.status, row.failure_reason, row.expired) == ("failed", "expired", True)
    [failed] = events_of(setup.plan, "payment.failed")
    assert failed == {
        "resourceType": "payment_plan",
        "resourceId": setup.plan.public_id,
        "orderReference": setup.plan.order_reference,
        "reason": "expired",
        "retryable": True,
        "channel": "bank_transfer",
    }
    read = setup.shopper.get(f"{setup.url}/payments/{payment['id']}")
    data = read.json()["data"]["payment"]
    assert (data["status"], data["failure_reason"]) == ("expired", "expired")
    # The customer's money after expiry is refused and nothing is applied.
    late = sandbox(setup, payment["id"], "complete")
    assert late.status_code == 409, late.content
    assert late.json()["error"]["code"] == "payment_expired"
    assert snapshots(setup.plan) == before
    assert payment_events(setup.plan) == ["payment.failed"]
    # The plan can be paid again at once, under the next reference.
    again = pay_by_transfer(setup)
    assert again["reference"] == f"{setup.plan.public_id}_po2"


def test_money_that_landed_before_expiry_is_applied_by_the_sweep(
    plan_active, monkeypatch
):
    setup = plan_active
    first = installments_of(setup.plan)[0]
    payment = pay_by_transfer(setup, first)
    # The customer paid; the processor's event never arrived.
    from payments.gateway.services import processor_events

    monkeypatch.setattr(
        processor_events, "processor_event_handle", lambda **kwargs: "lost"
    )
    from payments.gateway.services import sandbox_offline

    monkeypatch.setattr(
        sandbox_offline, "processor_event_handle", lambda **kwargs: "lost"
    )
    assert sandbox(setup, payment["id"], "complete").status_code == 200
    assert EarlyPayment.objects.get().status == "processing"
    row = EarlyPayment.objects.get()

    with time_machine.travel(row.expires_at + timedelta(minutes=1), tick=False):
        assert tasks.expire_offline_payments() == 1

    first.refresh_from_db()
    assert (first.status, EarlyPayment.objects.get().status) == ("paid", "succeeded")
    assert events_of(setup.plan, "payment.failed") == []
    assert "clean" in check_ledger()


def test_the_sandbox_expire_call_ends_it_at_once(plan_active):
    setup = plan_active
    before = snapshots(setup.plan)
    payment = pay_by_transfer(setup)

    ended = sandbox(setup, payment["id"], "expire")

    assert ended.status_code == 200, ended.content
    assert ended.json()["data"]["payment"]["status"] == "expired"
    assert snapshots(setup.plan) == before
    assert len(events_of(setup.plan, "payment.failed")) == 1
    assert sandbox(setup, payment["id"], "expire").status_code == 409
    assert sandbox(setup, payment["id"], "complete").status_code == 409
    assert len(events_of(setup.plan, "payment.failed")) == 1


def test_the_sandbox_calls_reach_only_the_plans_merchant(plan_active):
    setup = plan_active
    payment = pay_by_transfer(setup)
    other = make_merchant_with_key()

    for action in ("complete", "expire"):
        assert sandbox(setup, payment["id"], action, key=other).status_code == 404
    assert sandbox(setup, "pay_unknown", "complete").status_code == 404
    assert sandbox(setup, "zz_unknown", "expire").status_code == 404
    assert EarlyPayment.objects.get().status == "processing"


def test_the_sandbox_calls_refuse_a_live_key_on_a_live_processor(plan_active, settings):
    setup = plan_active
    payment = pay_by_transfer(setup)
    settings.PROCESSOR = "paystack"

    refused = sandbox(setup, payment["id"], "complete")
    assert refused.status_code == 403
    assert refused.json()["error"]["code"] == "live_mode_forbidden"
    assert EarlyPayment.objects.get().status == "processing"


def test_the_engines_recovery_leaves_a_pending_transfer_alone(plan_active):
    setup = plan_active
    rows = installments_of(setup.plan)
    pay_by_transfer(setup)
    row = EarlyPayment.objects.get()

    # Past the engine's 10-minute lease, before the expiry; every installment due.
    with time_machine.travel(row.created_at + timedelta(minutes=20), tick=False):
        collect(on_date=rows[-1].due_date)

    assert EarlyPayment.objects.get().status == "processing"
    assert {r.status for r in installments_of(setup.plan)} == {"processing"}
    for installment in rows:
        assert not charges_for(installment).exists()


# --- held like any early payment ------------------------------------------------


def test_a_pending_transfer_blocks_a_refund_and_the_engine_skips_it(plan_active):
    setup = plan_active
    first, second, third = installments_of(setup.plan)
    pay_by_transfer(setup, first)

    busy = refund(setup, setup.plan.total_amount)
    summary = collect(on_date=third.due_date)

    assert busy.status_code == 409, busy.content
    assert busy.json()["error"]["code"] == "plan_busy"
    assert summary.claimed == 2
    first.refresh_from_db()
    assert (first.status, first.attempts) == ("processing", 1)
    assert not charges_for(first).exists()
    assert "clean" in check_ledger()


def test_a_second_payment_while_one_waits_is_409(plan_active):
    setup = plan_active
    pay_by_transfer(setup, installments_of(setup.plan)[0])

    again = pay(setup, payoff=True, channel="ussd", bank="919")

    assert again.status_code == 409
    assert again.json()["error"]["code"] == "payment_in_progress"
    assert EarlyPayment.objects.count() == 1


# --- the processor says no, or nothing ------------------------------------------


def test_a_processor_refusal_is_402_and_restores_everything(plan_active, monkeypatch):
    setup = plan_active
    before = snapshots(setup.plan)

    def refuse(self, **kwargs):
        raise ProcessorRefused(processor_message="USSD is not available now")

    monkeypatch.setattr(SandboxProcessor, "charge_offline", refuse)

    response = pay(setup, payoff=True, channel="ussd", bank="737")

    assert response.status_code == 402, response.content
    assert response.json()["error"]["code"] == "payment_failed"
    assert "USSD is not available now" in response.json()["error"]["message"]
    assert snapshots(setup.plan) == before
    assert EarlyPayment.objects.get().status == "failed"
    assert payment_events(setup.plan) == []


def test_no_answer_is_502_and_the_payment_ends_at_its_expiry(plan_active, monkeypatch):
    setup = plan_active
    before = snapshots(setup.plan)

    def fail(self, **kwargs):
        raise ProcessorError()

    monkeypatch.setattr(SandboxProcessor, "charge_offline", fail)

    response = pay(setup, payoff=True, channel="bank_transfer")

    assert response.status_code == 502, response.content
    assert response.json()["error"]["code"] == "processor_error"
    row = EarlyPayment.objects.get()
    assert (row.status, row.instructions) == ("processing", {})
    with time_machine.travel(row.expires_at + timedelta(minutes=1), tick=False):
        assert tasks.expire_offline_payments() == 1
    assert snapshots(setup.plan) == before
    assert EarlyPayment.objects.get().expired
