"""The sandbox's bank transfers and USSD codes (DESIGN section 17): a pending
charge with a fake account or code, paid only by the sandbox's complete call
(then settled through `charge.success`, once, by the registered handlers),
refused after expiry, for another amount or twice, and ended by expire."""

import threading
from datetime import timedelta

import pytest
import time_machine
from django.utils import timezone

from payments.gateway.errors import (
    ProcessorRefused,
    SandboxAmountMismatch,
    SandboxChargeExpired,
    SandboxChargeNotFound,
    SandboxChargeNotPending,
)
from payments.gateway.hooks import (
    register_charge_confirmation_handler,
    unregister_charge_confirmation_handler,
)
from payments.gateway.processors import get_processor
from payments.gateway.processors.base import TransactionStatus
from payments.gateway.services import (
    sandbox_offline_charge,
    sandbox_offline_complete,
    sandbox_offline_expire,
)
from payments.models import ProcessorEvent, SandboxAuthorization, SandboxTransaction

from ..concurrency import run_concurrently
from .conftest import postgres_only

pytestmark = pytest.mark.django_db

AMOUNT = 250_000
REFERENCE = "sbx_offline_1"


def open_charge(reference=REFERENCE, *, channel="bank_transfer", bank="", **extra):
    return get_processor().charge_offline(
        email="alice@mail.example.com",
        amount=AMOUNT,
        reference=reference,
        channel=channel,
        ussd_bank=bank,
        expires_at=timezone.now() + timedelta(minutes=30),
        **extra,
    )


def verify(reference=REFERENCE):
    return get_processor().verify_transaction(reference=reference)


@pytest.fixture
def confirmed():
    """The charges a registered charge confirmation handler is handed."""
    seen = []

    def confirm(charge):
        seen.append(charge)
        return charge.reference.startswith("sbx_offline")

    register_charge_confirmation_handler(confirm)
    yield seen
    unregister_charge_confirmation_handler(confirm)


# -- opening one -------------------------------------------------------------------


def test_a_transfer_answers_a_fake_account_that_waits_for_the_customer():
    charge = open_charge()

    assert charge.pending
    assert (charge.channel, charge.amount, charge.currency) == (
        "bank_transfer",
        AMOUNT,
        "NGN",
    )
    assert charge.bank_name == "Sandbox Bank"
    assert charge.account_name.startswith("Sandbox / ")
    assert len(charge.account_number) == 10 and charge.account_number.isdigit()
    assert charge.expires_at > timezone.now()
    assert "NGN 2,500.00" in charge.display_text
    assert "fake" in charge.display_text
    result = verify()
    assert (result.status, result.channel, result.amount) == (
        TransactionStatus.PENDING,
        "bank_transfer",
        AMOUNT,
    )


def test_the_account_number_follows_from_the_reference():
    first = open_charge("sbx_offline_a")
    second = open_charge("sbx_offline_b")

    assert first.account_number != second.account_number
    assert sandbox_offline_charge(reference="sbx_offline_a") == first


def test_a_ussd_charge_answers_a_code_of_the_chosen_bank():
    charge = open_charge(channel="ussd", bank="919")

    assert charge.pending
    assert charge.channel == "ussd"
    assert charge.ussd_code.startswith("*919*000*")
    assert charge.ussd_code.endswith("#")
    assert len(charge.ussd_code) == len("*919*000*1234#")
    assert charge.ussd_code in charge.display_text
    assert charge.account_number == ""
    assert verify().channel == "ussd"


@pytest.mark.parametrize("other", ["bank_transfer", "card"])
def test_a_reference_used_before_is_refused_like_paystack(other):
    if other == "bank_transfer":
        open_charge()
    else:
        SandboxTransaction.objects.create(
            reference=REFERENCE,
            kind=SandboxTransaction.Kind.CARD_CHECKOUT,
            email="alice@mail.example.com",
            amount=5000,
        )

    with pytest.raises(ProcessorRefused, match="Duplicate Transaction Reference"):
        open_charge(channel="ussd", bank="737")

    assert SandboxTransaction.objects.count() == 1


@pytest.mark.parametrize(
    ("channel", "bank"), [("card", ""), ("bank_account", ""), ("ussd", "123")]
)
def test_another_channel_or_an_unknown_ussd_bank_is_a_callers_bug(channel, bank):
    with pytest.raises(ValueError):
        open_charge(channel=channel, bank=bank)

    assert not SandboxTransaction.objects.exists()


def test_a_charge_of_nothing_or_already_expired_is_refused():
    processor = get_processor()

    with pytest.raises(ProcessorRefused, match="Invalid Amount"):
        processor.charge_offline(
            email="a@b.ng",
            amount=0,
            reference=REFERENCE,
            channel="bank_transfer",
            expires_at=timezone.now() + timedelta(minutes=30),
        )
    with pytest.raises(ProcessorRefused, match="future"):
        processor.charge_offline(
            email="a@b.ng",
            amount=AMOUNT,
            reference=REFERENCE,
            channel="bank_transfer",
            expires_at=timezone.now(),
        )

    assert not SandboxTransaction.objects.exists()


@pytest.mark.parametrize(
    ("saved", "channel"), [("card", "card"), ("bank", "bank_account")]
)
def test_verify_names_the_channel_of_every_sandbox_charge(saved, channel):
    SandboxAuthorization.objects.create(
        authorization_code="AUTH_saved",
        channel=saved,
        email="alice@mail.example.com",
        last4="4081",
    )
    get_processor().charge_authorization(
        email="alice@mail.example.com",
        amount=AMOUNT,
        authorization_code="AUTH_saved",
        reference="inst_x_a1",
    )

    assert verify("inst_x_a1").channel == channel


# -- completing it ---------------------------------------------------------------


def test_nothing_but_the_complete_call_pays_it(confirmed):
    open_charge()

    with time_machine.travel(timezone.now() + timedelta(minutes=29)):
        assert verify().status == TransactionStatus.PENDING
    assert confirmed == []
    assert not ProcessorEvent.objects.exists()


def test_complete_pays_it_and_the_handler_settles_it_once(confirmed):
    open_charge()

    paid = sandbox_offline_complete(reference=REFERENCE)

    assert paid.status == "success"
    result = verify()
    assert (result.status, result.channel, result.amount) == (
        TransactionStatus.SUCCESS,
        "bank_transfer",
        AMOUNT,
    )
    assert result.paid_at is not None
    [charge] = confirmed
    assert (charge.reference, charge.amount, charge.currency, charge.channel) == (
        REFERENCE,
        AMOUNT,
        "NGN",
        "bank_transfer",
    )
    assert charge.source == "sandbox"
    event = ProcessorEvent.objects.get()
    assert (event.kind, event.key, event.source) == (
        "charge.success",
        REFERENCE,
        "sandbox",
    )
    assert event.note.startswith("confirmed by ")


def test_a_ussd_charge_completed_with_its_amount_reaches_the_handler_as_ussd(
    confirmed,
):
    open_charge(channel="ussd", bank="737")

    sandbox_offline_complete(reference=REFERENCE, amount=AMOUNT)

    assert [charge.channel for charge in confirmed] == ["ussd"]
    assert verify().channel == "ussd"


def test_completing_twice_is_refused_and_settles_nothing_more(confirmed):
    open_charge()
    sandbox_offline_complete(reference=REFERENCE)

    with pytest.raises(SandboxChargeNotPending) as refused:
        sandbox_offline_complete(reference=REFERENCE)

    assert refused.value.http_status == 409
    assert refused.value.code == "payment_not_pending"
    assert "already paid" in refused.value.message
    assert len(confirmed) == 1
    assert ProcessorEvent.objects.count() == 1


@pytest.mark.parametrize("amount", [AMOUNT - 1, AMOUNT + 100, 1])
def test_another_amount_is_refused_and_the_charge_still_waits(confirmed, amount):
    open_charge()

    with pytest.raises(SandboxAmountMismatch) as refused:
        sandbox_offline_complete(reference=REFERENCE, amount=amount)

    assert refused.value.http_status == 422
    assert refused.value.code == "amount_mismatch"
    assert str(AMOUNT) in refused.value.message
    assert verify().status == TransactionStatus.PENDING
    assert confirmed == []
    # The exact amount still pays it.
    sandbox_offline_complete(reference=REFERENCE, amount=AMOUNT)
    assert len(confirmed) == 1


def test_money_after_expiry_is_refused_and_verify_says_abandoned(confirmed):
    open_charge()

    with time_machine.travel(timezone.now() + timedelta(minutes=30, seconds=1)):
        with pytest.raises(SandboxChargeExpired) as refused:
            sandbox_offline_complete(reference=REFERENCE)
        result = verify()

    assert refused.value.http_status == 409
    assert refused.value.code == "payment_expired"
    assert result.status == TransactionStatus.ABANDONED
    assert "expired" in result.gateway_response
    assert confirmed == []
    assert not ProcessorEvent.objects.exists()


def test_an_unknown_reference_is_not_found():
    with pytest.raises(SandboxChargeNotFound) as refused:
        sandbox_offline_complete(reference="sbx_offline_nobody")

    assert refused.value.http_status == 404
    assert sandbox_offline_charge(reference="sbx_offline_nobody") is None
    with pytest.raises(SandboxChargeNotFound):
        sandbox_offline_expire(reference="sbx_offline_nobody")


def test_a_handler_that_fails_gets_the_payment_again_on_the_next_complete():
    open_charge()
    calls = []

    def broken(charge):
        calls.append(charge)
        if len(calls) == 1:
            raise RuntimeError("database hiccup")
        return True

    register_charge_confirmation_handler(broken)
    try:
        with pytest.raises(RuntimeError, match="database hiccup"):
            sandbox_offline_complete(reference=REFERENCE)
        assert verify().status == TransactionStatus.SUCCESS  # the money landed
        assert not ProcessorEvent.objects.exists()

        sandbox_offline_complete(reference=REFERENCE)  # announced again
        with pytest.raises(SandboxChargeNotPending):
            sandbox_offline_complete(reference=REFERENCE)
    finally:
        unregister_charge_confirmation_handler(broken)

    assert len(calls) == 2
    assert ProcessorEvent.objects.count() == 1


def test_a_completed_transfer_can_be_refunded_like_any_charge(confirmed):
    open_charge()
    sandbox_offline_complete(reference=REFERENCE)

    refund = get_processor().refund(transaction_reference=REFERENCE, amount=100_000)

    assert (refund.transaction_reference, refund.amount) == (REFERENCE, 100_000)


# -- expiring it -----------------------------------------------------------------


def test_expire_ends_it_verify_says_abandoned_and_completing_is_refused(confirmed):
    open_charge(channel="ussd", bank="822")

    ended = sandbox_offline_expire(reference=REFERENCE)

    assert ended.status == "abandoned"
    result = verify()
    assert (result.status, result.channel) == (TransactionStatus.ABANDONED, "ussd")
    with pytest.raises(SandboxChargeExpired):
        sandbox_offline_complete(reference=REFERENCE)
    assert sandbox_offline_expire(reference=REFERENCE).status == "abandoned"
    assert confirmed == []


def test_a_paid_charge_cannot_expire(confirmed):
    open_charge()
    sandbox_offline_complete(reference=REFERENCE)

    with pytest.raises(SandboxChargeNotPending):
        sandbox_offline_expire(reference=REFERENCE)

    assert verify().status == TransactionStatus.SUCCESS


def test_on_another_processor_completing_still_reaches_the_sandbox(settings):
    # Only the sandbox endpoints complete or expire, and beside a real
    # processor only for test data, which is the sandbox's (DESIGN 21): an
    # unknown reference is unknown to the sandbox, not to Paystack.
    settings.PROCESSOR = "paystack"

    with pytest.raises(SandboxChargeNotFound, match="The sandbox has no"):
        sandbox_offline_complete(reference=REFERENCE)
    with pytest.raises(SandboxChargeNotFound):
        sandbox_offline_expire(reference=REFERENCE)
    assert sandbox_offline_charge(reference=REFERENCE) is None


# -- at once ---------------------------------------------------------------------


@postgres_only
@pytest.mark.django_db(transaction=True)
def test_completions_at_once_pay_it_and_settle_it_exactly_once(confirmed):
    open_charge()

    outcomes = run_concurrently(
        lambda: sandbox_offline_complete(reference=REFERENCE), 6
    )

    errors = [o for o in outcomes if isinstance(o, Exception)]
    assert all(isinstance(error, SandboxChargeNotPending) for error in errors), errors
    assert len(errors) < 6
    assert len(confirmed) == 1
    assert ProcessorEvent.objects.count() == 1
    assert verify().status == TransactionStatus.SUCCESS


@postgres_only
@pytest.mark.django_db(transaction=True)
def test_complete_and_expire_at_once_leave_it_either_paid_or_abandoned(confirmed):
    open_charge()

    turns = iter(["complete", "expire"] * 3)
    lock = threading.Lock()

    def complete_or_expire():
        with lock:
            turn = next(turns)
        if turn == "complete":
            return sandbox_offline_complete(reference=REFERENCE)
        return sandbox_offline_expire(reference=REFERENCE)

    outcomes = run_concurrently(complete_or_expire, 6)

    refusals = (SandboxChargeNotPending, SandboxChargeExpired)
    errors = [o for o in outcomes if isinstance(o, Exception)]
    assert all(isinstance(error, refusals) for error in errors), errors

    status = verify().status
    assert status in (TransactionStatus.SUCCESS, TransactionStatus.ABANDONED)
    assert len(confirmed) == (1 if status == TransactionStatus.SUCCESS else 0)
