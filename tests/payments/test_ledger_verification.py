"""The verification charge and its refund in the ledger (DESIGN section 8)."""

from datetime import timedelta
from importlib import import_module
from io import StringIO

import pytest
import time_machine
from django.apps import apps as django_apps
from django.core.management import call_command
from django.utils import timezone
from rest_framework.test import APIClient

from payments.gateway.processors import RefundResult, get_processor
from payments.gateway.services import verification_refunds_retry
from payments.ledger import selectors
from payments.ledger.models import CUSTOMER_REFUNDS, PROCESSOR_CLEARING
from payments.models import (
    LedgerLine,
    LedgerTransaction,
    ProcessorCharge,
    ProcessorRefund,
)

from .conftest import (
    CARD_DECLINED,
    add_bank,
    add_card,
    initialize_card,
    reference_from_redirect,
    submit_card_form,
    verify_card,
)

pytestmark = pytest.mark.django_db

Kind = LedgerTransaction.Kind


def ledger_kinds(reference: str) -> list[str]:
    return sorted(
        LedgerTransaction.objects.filter(reference=reference).values_list(
            "kind", flat=True
        )
    )


def test_a_saved_card_posts_the_verification_charge_and_its_refund(alice, committed):
    with committed():
        add_card(alice)

    charge = ProcessorCharge.objects.get()
    assert ledger_kinds(charge.reference) == [
        Kind.VERIFICATION_CHARGE,
        Kind.VERIFICATION_REFUND,
    ]
    posted = LedgerTransaction.objects.get(kind=Kind.VERIFICATION_CHARGE)
    assert (posted.amount, posted.customer) == (5000, alice.customer)
    assert {line.account: line.amount for line in posted.lines.all()} == {
        PROCESSOR_CLEARING: 5000,
        CUSTOMER_REFUNDS: -5000,
    }
    assert selectors.account_balance(PROCESSOR_CLEARING) == 0
    assert selectors.account_balance(CUSTOMER_REFUNDS) == 0


def test_a_saved_mandate_posts_the_verification_charge_and_its_refund(alice, committed):
    with committed():
        add_bank(alice)

    charge = ProcessorCharge.objects.get()
    assert charge.purpose == ProcessorCharge.Purpose.BANK_VERIFICATION
    assert ledger_kinds(charge.reference) == [
        Kind.VERIFICATION_CHARGE,
        Kind.VERIFICATION_REFUND,
    ]


def test_until_the_refund_happens_the_charge_is_owed_to_the_customer(alice):
    add_card(alice)  # no commit: the refund task has not run

    assert ledger_kinds(ProcessorCharge.objects.get().reference) == [
        Kind.VERIFICATION_CHARGE
    ]
    assert selectors.account_balance(PROCESSOR_CLEARING) == 5000
    assert -selectors.account_balance(CUSTOMER_REFUNDS) == 5000


def test_a_declined_card_posts_nothing(alice, committed):
    started = initialize_card(alice)
    redirect = submit_card_form(
        APIClient(), started["authorization_url"], CARD_DECLINED
    )
    with committed():
        response = verify_card(alice, reference_from_redirect(redirect))

    assert response.status_code == 402
    assert ProcessorCharge.objects.get().status == "failed"
    assert not LedgerTransaction.objects.exists()


def test_verifying_twice_posts_the_charge_once(alice, committed):
    started = initialize_card(alice)
    redirect = submit_card_form(
        APIClient(), started["authorization_url"], "4084084084084081"
    )
    reference = reference_from_redirect(redirect)
    with committed():
        assert verify_card(alice, reference).status_code == 200
        assert verify_card(alice, reference).status_code == 200

    assert ledger_kinds(reference) == [
        Kind.VERIFICATION_CHARGE,
        Kind.VERIFICATION_REFUND,
    ]


@pytest.fixture
def refunds_stay_pending(monkeypatch):
    """The processor accepts refunds but does not process them at once, as
    Paystack may (status `pending`)."""
    sandbox = get_processor()
    real_refund = sandbox.refund

    def pending_refund(**kwargs):
        done = real_refund(**kwargs)
        return RefundResult(
            refund_id=done.refund_id,
            transaction_reference=done.transaction_reference,
            amount=done.amount,
            status="pending",
        )

    monkeypatch.setattr(sandbox, "refund", pending_refund)
    return sandbox


def test_a_pending_refund_is_posted_only_once_the_processor_processed_it(
    alice, committed, refunds_stay_pending, monkeypatch
):
    with committed():
        add_card(alice)
    refund = ProcessorRefund.objects.get()
    assert refund.status == "pending"
    assert ledger_kinds(refund.charge.reference) == [Kind.VERIFICATION_CHARGE]

    # The sweeper asks again: still pending, then processed.
    asked = []

    def fetch(*, refund_id):
        asked.append(refund_id)
        status = "processing" if len(asked) == 1 else "processed"
        return RefundResult(
            refund_id=refund_id,
            transaction_reference=refund.charge.reference,
            amount=5000,
            status=status,
        )

    monkeypatch.setattr(refunds_stay_pending, "fetch_refund", fetch)
    with time_machine.travel(timezone.now() + timedelta(minutes=6)):
        verification_refunds_retry()
        refund.refresh_from_db()
        assert refund.status == "processing"
        assert ledger_kinds(refund.charge.reference) == [Kind.VERIFICATION_CHARGE]

        verification_refunds_retry()
        verification_refunds_retry()

    refund.refresh_from_db()
    assert refund.status == "processed"
    assert len(asked) == 2  # a processed refund is not asked about again
    assert ledger_kinds(refund.charge.reference) == [
        Kind.VERIFICATION_CHARGE,
        Kind.VERIFICATION_REFUND,
    ]
    assert selectors.account_balance(CUSTOMER_REFUNDS) == 0


def test_the_sandbox_reports_its_refunds_processed(alice, committed):
    with committed():
        add_card(alice)
    refund = ProcessorRefund.objects.get()

    fetched = get_processor().fetch_refund(refund_id=refund.refund_id)

    assert (fetched.status, fetched.amount) == ("processed", 5000)
    assert fetched.transaction_reference == refund.charge.reference
    assert get_processor().fetch_refund(refund_id="sbx_refund_999999") is None
    assert get_processor().fetch_refund(refund_id="nonsense") is None


def test_charges_recorded_before_the_ledger_are_backfilled_once(alice, committed):
    with committed():
        add_card(alice)
    charge = ProcessorCharge.objects.get()
    # As on a database from before this ledger: records without postings.
    LedgerLine.objects.filter(transaction__reference=charge.reference)._raw_delete(
        "default"
    )
    LedgerTransaction.objects.filter(reference=charge.reference)._raw_delete("default")
    backfill = import_module(
        "payments.migrations.0005_backfill_verification_postings"
    ).backfill

    backfill(django_apps, None)
    backfill(django_apps, None)

    assert ledger_kinds(charge.reference) == [
        Kind.VERIFICATION_CHARGE,
        Kind.VERIFICATION_REFUND,
    ]
    out = StringIO()
    call_command("check_ledger", stdout=out)
    assert "clean" in out.getvalue()
