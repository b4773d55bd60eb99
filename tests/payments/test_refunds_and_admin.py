"""Verification refunds that could not happen at once, and the admin pages."""

from datetime import timedelta
from io import StringIO

import pytest
import time_machine
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.utils import timezone

from config.schedules import declared
from payments.gateway.errors import ProcessorTimeout
from payments.gateway.processors import get_processor
from payments.gateway.services import verification_refund
from payments.gateway.tasks import refund_verification_charges
from payments.models import (
    LedgerTransaction,
    PaymentMethod,
    Payout,
    ProcessorRefund,
    SandboxRefund,
)

from .conftest import add_bank, add_card, credit_wallet

pytestmark = pytest.mark.django_db


def test_a_refund_the_processor_could_not_take_is_retried_by_the_sweeper(
    alice, committed, monkeypatch
):
    sandbox = get_processor()

    def down(**kwargs):
        raise ProcessorTimeout()

    monkeypatch.setattr(sandbox, "refund", down)
    with committed():
        add_card(alice)
    assert not ProcessorRefund.objects.exists()
    monkeypatch.undo()

    # Too recent for the sweeper: the fast path may still be running.
    assert refund_verification_charges() == 0
    with time_machine.travel(timezone.now() + timedelta(minutes=6)):
        assert refund_verification_charges() == 1
        assert refund_verification_charges() == 0

    assert ProcessorRefund.objects.get().amount == 5000
    assert SandboxRefund.objects.count() == 1


def test_a_refund_whose_answer_was_lost_is_recorded_without_refunding_twice(
    alice, committed
):
    with committed():
        add_bank(alice)
    refund = ProcessorRefund.objects.get()
    charge = refund.charge
    refund.delete()  # as if the processor's answer had been lost

    again = verification_refund(charge_id=charge.pk)

    assert again.status == "processed"
    assert SandboxRefund.objects.count() == 1


def test_the_refund_sweeper_is_a_declared_schedule():
    names = {spec.name: spec for spec in declared()}

    spec = names["payments-refund-verification-charges"]
    assert spec.func == "payments.gateway.tasks.refund_verification_charges"


@pytest.fixture
def staff_client(client):
    user = get_user_model().objects.create_superuser(
        "ops", "ops@installments.ng", "Sturdy-Passw0rd-42"
    )
    client.force_login(user)
    return client


def test_the_admin_never_shows_an_authorization_code_in_full(alice, staff_client):
    card = add_card(alice)
    method = PaymentMethod.objects.get(public_id=card["id"])

    listing = staff_client.get("/admin/payments/paymentmethod/")
    page = staff_client.get(f"/admin/payments/paymentmethod/{method.pk}/change/")
    customer = staff_client.get(f"/admin/payments/customer/{alice.customer.pk}/change/")

    sandbox = staff_client.get("/admin/payments/sandboxauthorization/")
    for response in (listing, page, customer, sandbox):
        assert response.status_code == 200
        assert method.authorization_code.encode() not in response.content
    assert method.masked_authorization.encode() in page.content
    assert card["id"].encode() in listing.content


@pytest.mark.parametrize(
    "path",
    [
        "/admin/payments/processorcharge/",
        "/admin/payments/cardsetup/",
        "/admin/payments/bankmandate/",
        "/admin/payments/inboundrequest/",
        "/admin/payments/processorevent/",
        "/admin/payments/sandboxtransaction/",
        "/admin/payments/sandboxauthorization/",
        "/admin/payments/ledgertransaction/",
        "/admin/payments/payout/",
        "/admin/payments/payoutrecipient/",
    ],
)
def test_the_processor_record_pages_open(alice, staff_client, path):
    add_card(alice)

    assert staff_client.get(path).status_code == 200


def test_the_ledger_and_payout_pages_open_read_only(payee, staff_client, committed):
    credit_wallet(payee.merchant, 200_000)
    with committed():
        call_command("run_payouts", stdout=StringIO())
    payout = Payout.objects.get()
    txn = LedgerTransaction.objects.get(kind="payout")

    for path in (
        f"/admin/payments/payout/{payout.pk}/change/",
        f"/admin/payments/ledgertransaction/{txn.pk}/change/",
        "/admin/payments/ledgertransaction/?kind=collection",
    ):
        response = staff_client.get(path)
        assert response.status_code == 200
    page = staff_client.get(f"/admin/payments/ledgertransaction/{txn.pk}/change/")
    assert b"payouts_in_transit" in page.content
    assert (
        staff_client.post(f"/admin/payments/payout/{payout.pk}/delete/").status_code
        == 403
    )
