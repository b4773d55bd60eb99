"""With REDIS_URL the task broker can be down while the database is up (the ORM
broker could not be). Work that commits and then enqueues its task must still
answer as committed: a sweeper schedule finds the rows whose task never ran
(the failed-collection e-mail, which has none, is only logged)."""

from datetime import timedelta

import pytest
import time_machine
from django.utils import timezone
from django_q.conf import Conf
from rest_framework.test import APIClient

from payments.gateway.services import paystack_events_retry, verification_refunds_retry
from payments.models import InboundRequest, Payout, ProcessorCharge, ProcessorRefund
from payments.payouts.services import payouts_run
from payments.payouts.services.payouts import STALE_AFTER

from ..checkout.conftest import CARD_POOR
from ..conftest import make_merchant_with_key
from ..factories import CustomerFactory
from ..installments.conftest import collect, installments_of, make_active_plan
from ..installments.failed_collections import only_card
from ..payments.conftest import (
    add_card,
    credit_wallet,
    set_payout_account,
    sign_in,
    signed_post,
)
from ..servers import free_port

pytestmark = [pytest.mark.redis, pytest.mark.django_db(transaction=True)]


def stop_broker(monkeypatch) -> None:
    """Enqueueing meets a refused connection from now on: the broker points at
    a port nothing listens on (the cache and counters keep the running Redis)."""
    monkeypatch.setattr(Conf, "SYNC", False)
    monkeypatch.setattr(Conf, "REDIS", f"redis://127.0.0.1:{free_port()}/0")


@pytest.fixture
def broker_down(monkeypatch):
    stop_broker(monkeypatch)


def test_a_card_verified_while_the_broker_is_down_is_saved_and_refunded_later(
    broker_down,
):
    alice = sign_in(CustomerFactory(email="alice@mail.example.com"))

    card = add_card(alice)  # asserts 200: the card is saved, not a 500

    charge = ProcessorCharge.objects.get()
    assert charge.payment_method.public_id == card["id"]
    assert not ProcessorRefund.objects.exists()  # its task was never queued
    assert verification_refunds_retry(older_than=timedelta(0)) == 1
    assert ProcessorRefund.objects.get(charge=charge).status == "processed"


def test_a_paystack_event_received_while_the_broker_is_down_is_handled_later(
    broker_down,
):
    response = signed_post(
        APIClient(),
        "/api/v1/webhooks/paystack",
        {"event": "subscription.create", "data": {}},
    )

    assert response.status_code == 200
    stored = InboundRequest.objects.get()
    assert (stored.signature_valid, stored.outcome) == (True, "")
    assert paystack_events_retry(older_than=timedelta(0)) == 1
    stored.refresh_from_db()
    assert stored.outcome.startswith("ignored")


def test_a_sandbox_payout_sent_while_the_broker_is_down_is_settled_by_the_next_run(
    broker_down,
):
    """The transfer is made and committed; only the sandbox's settling task is
    lost. The run counts the payout as made (not as an error), and the next
    run's look at stale payouts settles it from the processor's answer."""
    merchant = make_merchant_with_key().merchant
    set_payout_account(merchant)
    merchant.refresh_from_db()
    net = credit_wallet(merchant, 150_000)

    run = payouts_run()

    assert (len(run.created), run.errors) == (1, 0)
    payout = Payout.objects.get()
    assert (payout.status, payout.amount) == ("processing", net)
    with time_machine.travel(timezone.now() + STALE_AFTER + timedelta(minutes=1)):
        later = payouts_run()
    assert (later.rechecked, later.errors) == (1, 0)
    payout.refresh_from_db()
    assert payout.status == "paid"


def test_a_collection_pass_while_the_broker_is_down_records_its_failures(
    monkeypatch,
):
    """A failed attempt queues the customer's e-mail after its batch commits;
    the pass goes on and reports the batch instead of failing with it."""
    setup = make_active_plan()
    only_card(setup, CARD_POOR)
    first = installments_of(setup.plan)[0]
    stop_broker(monkeypatch)

    summary = collect(first.due_date)

    assert (
        summary.claimed,
        summary.resumed,
        summary.tally.paid,
        summary.tally.failed,
        summary.tally.defaulted,
    ) == (1, 0, 0, 1, 0)
    first.refresh_from_db()
    assert (first.status, first.last_failure_reason) == (
        "failed",
        "insufficient_funds",
    )
