"""Every row of DESIGN section 9's sandbox table, through the public endpoints
(and, for later charges and payouts, whose endpoints belong to later issues,
through the processor interface those features call)."""

import json
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from rest_framework.test import APIClient

from payments.gateway.errors import ProcessorRefused
from payments.gateway.processors import FailureReason, get_processor
from payments.models import PaymentMethod, SandboxAuthorization, SandboxTransaction

from .conftest import (
    CARD_DECLINED,
    CARD_OK,
    CARD_POOR,
    add_card,
    initialize_card,
    initiate_mandate,
    mandate_step,
    reference_from_redirect,
    submit_card_form,
    verify_card,
)

pytestmark = pytest.mark.django_db

BANKS_FILE = (
    Path(__file__).resolve().parents[2]
    / "payments"
    / "gateway"
    / "data"
    / "banks_ng.json"
)


def charge_later(method_id: str, reference: str):
    method = PaymentMethod.objects.get(public_id=method_id)
    return get_processor().charge_authorization(
        email=method.customer.email,
        amount=250_000,
        authorization_code=method.authorization_code,
        reference=reference,
    )


def test_card_4084084084084081_authorizes_and_later_charges_succeed(alice):
    card = add_card(alice, CARD_OK)

    assert card["type"] == "card"
    assert card["label"] == "Visa •••• 4081"
    assert card["last4"] == "4081"
    assert [m["id"] for m in alice.methods()] == [card["id"]]
    result = charge_later(card["id"], "inst-1-a1")
    assert result.succeeded
    assert result.amount == 250_000


def test_card_4084080000000409_authorizes_but_later_charges_fail_insufficient_funds(
    alice,
):
    card = add_card(alice, CARD_POOR)

    assert card["label"] == "Visa •••• 0409"
    result = charge_later(card["id"], "inst-2-a1")
    assert not result.succeeded
    assert result.failure_reason == FailureReason.INSUFFICIENT_FUNDS


def partial_later(method_id: str, reference: str, at_least: int):
    method = PaymentMethod.objects.get(public_id=method_id)
    return get_processor().partial_debit(
        email=method.customer.email,
        amount=250_000,
        at_least=at_least,
        authorization_code=method.authorization_code,
        reference=reference,
    )


def test_card_4084080000000060_only_ever_has_part_of_the_money(alice):
    card = add_card(alice, "4084080000000060")

    assert card["label"] == "Visa •••• 0060"
    full = charge_later(card["id"], "inst-3-a1")
    assert full.failure_reason == FailureReason.INSUFFICIENT_FUNDS
    # A partial debit collects 60% of what it asks for...
    part = partial_later(card["id"], "inst-3-a4p", at_least=125_000)
    assert (part.succeeded, part.amount) == (True, 150_000)
    # ...and nothing when that is less than its `at_least`.
    short = partial_later(card["id"], "inst-4-a4p", at_least=150_001)
    assert short.failure_reason == FailureReason.INSUFFICIENT_FUNDS
    # A card with the money gives a partial debit all of it; one without, none.
    assert (
        partial_later(add_card(alice, CARD_OK)["id"], "inst-5-a4p", at_least=1).amount
        == 250_000
    )
    poor = partial_later(add_card(alice, CARD_POOR)["id"], "inst-6-a4p", at_least=1)
    assert poor.failure_reason == FailureReason.INSUFFICIENT_FUNDS


def test_card_4000000000000002_is_declined_at_authorization(alice):
    started = initialize_card(alice)
    redirect = submit_card_form(
        APIClient(), started["authorization_url"], CARD_DECLINED
    )

    # A declined card still goes back to the callback URL...
    reference = reference_from_redirect(redirect)
    response = verify_card(alice, reference)

    # ...and verify says what happened.
    assert response.status_code == 402
    assert response.json()["error"]["code"] == "payment_failed"
    assert "Declined" in response.json()["error"]["message"]
    assert alice.methods() == []


def test_bank_account_ending_0_asks_for_the_otp_then_succeeds(alice):
    started = initiate_mandate(alice, "0123456780", is_default=True)

    assert started.status_code == 200
    assert started.json()["next_action"] == "submit_otp"
    assert started.json()["display_text"]
    assert "url" not in started.json()
    done = mandate_step(alice, "submit-otp", started.json()["reference"], otp="123456")
    assert done.status_code == 200
    assert done.json()["next_action"] == "success"
    bank = done.json()["data"]
    assert bank["type"] == "bank"
    assert bank["label"] == "Access Bank ••••6780"
    assert [m["id"] for m in alice.methods()] == [bank["id"]]


def test_bank_account_ending_1_asks_for_the_birthday_then_the_otp(alice):
    reference = initiate_mandate(alice, "0123456781").json()["reference"]

    birthday = mandate_step(alice, "submit-birthday", reference, birthday="1990-04-01")
    assert birthday.status_code == 200
    assert birthday.json()["next_action"] == "submit_otp"
    done = mandate_step(alice, "submit-otp", reference, otp="123456")
    assert done.json()["next_action"] == "success"
    assert done.json()["data"]["label"] == "Access Bank ••••6781"


def test_bank_account_ending_2_asks_for_the_phone_then_the_otp(alice):
    started = initiate_mandate(alice, "0123456782")
    assert started.json()["next_action"] == "submit_phone"
    reference = started.json()["reference"]

    phone = mandate_step(alice, "submit-phone", reference, phone="+2348012345678")
    assert phone.json()["next_action"] == "submit_otp"
    done = mandate_step(alice, "submit-otp", reference, otp="123456")
    assert done.json()["next_action"] == "success"


def test_bank_account_ending_3_opens_a_url_and_verifies_after_the_popup(alice):
    started = initiate_mandate(alice, "0123456783")
    body = started.json()
    assert body["next_action"] == "open_url"
    assert urlsplit(body["url"]).path == f"/sandbox/mandate/{body['reference']}"

    early = mandate_step(alice, "verify", body["reference"])
    assert early.status_code == 409
    assert early.json()["error"]["code"] == "mandate_not_authorized"

    popup = APIClient()
    page = popup.get(urlsplit(body["url"]).path)
    assert page.status_code == 200
    assert b"Authorize mandate" in page.content
    authorized = popup.post(urlsplit(body["url"]).path)
    assert b"Mandate authorized" in authorized.content

    done = mandate_step(alice, "verify", body["reference"])
    assert done.status_code == 200
    assert done.json()["next_action"] == "success"
    assert done.json()["data"]["label"] == "Access Bank ••••6783"


def test_bank_account_ending_4_continues_with_a_direct_debit_after_the_otp(alice):
    reference = initiate_mandate(alice, "0123456784").json()["reference"]

    step = mandate_step(alice, "submit-otp", reference, otp="123456")

    # The bank step's authorization cannot be charged again: not saved.
    body = step.json()
    assert step.status_code == 200
    assert body["next_action"] == "open_url"
    assert urlsplit(body["url"]).path.startswith("/sandbox/direct-debit/dd-")
    assert alice.methods() == []
    one_off = SandboxAuthorization.objects.get(account_number="0123456784")
    assert one_off.reusable is False
    assert (
        not get_processor()
        .charge_authorization(
            email=alice.customer.email,
            amount=250_000,
            authorization_code=one_off.authorization_code,
            reference="inst-4-a0",
        )
        .succeeded
    )

    early = mandate_step(alice, "verify", reference)
    assert early.status_code == 409
    assert early.json()["error"]["code"] == "mandate_not_authorized"
    assert alice.methods() == []

    popup = APIClient()
    page = popup.get(urlsplit(body["url"]).path)
    assert b"Authorize direct debit" in page.content
    consented = popup.post(urlsplit(body["url"]).path)
    assert consented.status_code == 302
    assert urlsplit(consented["Location"]).path == "/payment-methods/mandate-authorized"
    assert b"return to the window" in popup.get(consented["Location"]).content

    done = mandate_step(alice, "verify", reference)
    assert done.status_code == 200
    assert done.json()["next_action"] == "success"
    assert done.json()["data"]["label"] == "Access Bank ••••6784"
    method = PaymentMethod.objects.get()
    assert method.authorization_code != one_off.authorization_code
    assert charge_later(method.public_id, "inst-4-a1").succeeded


def test_otp_123456_is_correct_and_any_other_otp_is_invalid(alice):
    reference = initiate_mandate(alice, "0123456780").json()["reference"]

    wrong = mandate_step(alice, "submit-otp", reference, otp="654321")
    assert wrong.status_code == 400
    assert wrong.json()["error"]["code"] == "invalid_otp"
    right = mandate_step(alice, "submit-otp", reference, otp="123456")
    assert right.json()["next_action"] == "success"


def test_mandate_accounts_with_other_endings_are_declined(alice):
    response = initiate_mandate(alice, "0123456785")

    assert response.status_code == 402
    assert response.json()["error"]["code"] == "payment_failed"
    assert "0, 1, 2 or 3" in response.json()["error"]["message"]


@pytest.mark.parametrize(
    ("account_number", "outcome"), [("0123456789", "failed"), ("0123456788", "success")]
)
def test_payout_account_ending_9_fails_the_transfer_and_others_succeed(
    account_number, outcome
):
    sandbox = get_processor()
    recipient = sandbox.create_transfer_recipient(
        name="Shop 1", bank_code="058", account_number=account_number
    )
    sent = sandbox.transfer(
        amount=500_000,
        recipient_code=recipient.recipient_code,
        reference=f"po-{account_number}",
        reason="payout",
    )

    assert sent.status == "pending"
    settled = sandbox.verify_transfer(reference=sent.reference)
    assert settled.status == outcome
    assert settled.conclusive


def test_bank_list_is_the_projects_copy_of_the_reference_banks(alice):
    response = alice.get("/api/v1/payment-methods/banks")

    assert response.status_code == 200
    assert response.json() == {"ok": True, "data": json.loads(BANKS_FILE.read_text())}
    assert {"name": "Access Bank", "code": "044"} in response.json()["data"]


def test_each_charge_attempt_is_one_sandbox_row_with_a_unique_reference(alice):
    card = add_card(alice, CARD_OK)
    charge_later(card["id"], "inst-3-a1")
    charge_later(card["id"], "inst-3-a2")

    rows = SandboxTransaction.objects.filter(
        kind=SandboxTransaction.Kind.AUTHORIZATION_CHARGE
    )
    assert sorted(rows.values_list("reference", flat=True)) == [
        "inst-3-a1",
        "inst-3-a2",
    ]
    with pytest.raises(ProcessorRefused, match="Duplicate Transaction Reference"):
        charge_later(card["id"], "inst-3-a1")
    assert rows.count() == 2
