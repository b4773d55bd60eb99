"""Bank mandates (endpoints 14-18) with the sandbox processor."""

import threading

import pytest
from django.db import connection

from payments.gateway.processors import get_processor
from payments.methods.services import mandates
from payments.models import BankMandate, ProcessorCharge, ProcessorRefund

from ..factories import CustomerFactory
from .conftest import add_bank, initiate_mandate, mandate_step, postgres_only, sign_in

pytestmark = pytest.mark.django_db


def test_a_saved_mandate_is_a_bank_method_and_its_verification_charge_is_refunded(
    alice, committed
):
    with committed():
        bank = add_bank(alice, "0690000040")

    assert bank["type"] == "bank"
    assert bank["label"] == "Access Bank ••••0040"
    assert bank["bank_code"] == "044"
    assert bank["bank_name"] == "Access Bank"
    assert bank["is_default"] is True  # the customer's first method
    charge = ProcessorCharge.objects.get()
    assert charge.purpose == ProcessorCharge.Purpose.BANK_VERIFICATION
    assert (charge.amount, charge.status) == (5000, "success")
    assert ProcessorRefund.objects.get().charge == charge


def test_the_success_reply_carries_the_method_under_data(alice):
    started = initiate_mandate(alice, "0123456780")
    done = mandate_step(alice, "submit-otp", started.json()["reference"], otp="123456")

    body = done.json()
    assert body["ok"] is True
    assert body["next_action"] == "success"
    assert body["data"]["id"].startswith("pm_")


def test_a_step_after_success_answers_the_saved_method_again(alice):
    reference = initiate_mandate(alice, "0123456780").json()["reference"]
    first = mandate_step(alice, "submit-otp", reference, otp="123456").json()

    again = mandate_step(alice, "submit-otp", reference, otp="123456")

    assert again.status_code == 200
    assert again.json()["data"] == first["data"]
    assert ProcessorCharge.objects.count() == 1


def test_the_same_account_saved_twice_is_one_method(alice):
    first = add_bank(alice, "0123456780")
    second = add_bank(alice, "0123456780")

    assert first["id"] == second["id"]
    assert len(alice.methods()) == 1


def test_a_wrong_otp_says_how_many_attempts_are_left(alice):
    reference = initiate_mandate(alice, "0123456780").json()["reference"]

    response = mandate_step(alice, "submit-otp", reference, otp="000000")

    assert response.status_code == 400
    assert response.json()["error"] == {
        "code": "invalid_otp",
        "message": "The OTP is incorrect; 4 more attempts.",
    }


def test_after_five_wrong_otps_the_reference_is_dead(alice):
    reference = initiate_mandate(alice, "0123456780").json()["reference"]

    replies = [
        mandate_step(alice, "submit-otp", reference, otp="000000") for _ in range(5)
    ]
    assert [r.status_code for r in replies] == [400] * 5
    assert "dead" in replies[-1].json()["error"]["message"]

    # Even the right OTP is refused now, clearly.
    after = mandate_step(alice, "submit-otp", reference, otp="123456")
    assert after.status_code == 409
    assert after.json()["error"]["code"] == "otp_attempts_exhausted"
    assert "initiate-bank-mandate" in after.json()["error"]["message"]
    mandate = BankMandate.objects.get(reference=reference)
    assert mandate.status == BankMandate.Status.DEAD
    assert mandate.otp_failures == 5
    assert alice.methods() == []


def test_a_right_otp_after_wrong_ones_still_succeeds(alice):
    reference = initiate_mandate(alice, "0123456780").json()["reference"]
    for _ in range(4):
        mandate_step(alice, "submit-otp", reference, otp="000000")

    done = mandate_step(alice, "submit-otp", reference, otp="123456")

    assert done.json()["next_action"] == "success"


def test_a_step_the_mandate_is_not_waiting_for_is_409(alice):
    reference = initiate_mandate(alice, "0123456781").json()["reference"]

    response = mandate_step(alice, "submit-otp", reference, otp="123456")

    assert response.status_code == 409
    assert response.json()["error"]["code"] == "mandate_step_mismatch"
    assert "submit_birthday" in response.json()["error"]["message"]


def test_verify_is_only_for_the_open_url_step(alice):
    reference = initiate_mandate(alice, "0123456780").json()["reference"]

    response = mandate_step(alice, "verify", reference)

    assert response.status_code == 409
    assert response.json()["error"]["code"] == "mandate_step_mismatch"


def test_bank_details_repeated_in_a_step_must_match_the_mandate(alice):
    reference = initiate_mandate(alice, "0123456780").json()["reference"]

    response = mandate_step(
        alice,
        "submit-otp",
        reference,
        otp="123456",
        bank_code="058",
        bank_name="Guaranty Trust Bank",
        account_number="0123456789",
    )

    assert response.status_code == 400
    assert set(response.json()["errors"]) == {"bank_code", "account_number"}


def test_the_full_spec_body_of_a_step_is_accepted(alice):
    reference = initiate_mandate(alice, "0123456780").json()["reference"]

    response = mandate_step(
        alice,
        "submit-otp",
        reference,
        otp="123456",
        bank_code="044",
        bank_name="Access Bank",
        account_number="0123456780",
        is_default=True,
    )

    assert response.status_code == 200
    assert response.json()["data"]["is_default"] is True


def test_a_failed_mandate_reference_is_closed(alice):
    started = initiate_mandate(alice, "0123456785")
    reference = BankMandate.objects.get().reference
    assert started.status_code == 402

    response = mandate_step(alice, "submit-otp", reference, otp="123456")

    assert response.status_code == 409
    assert response.json()["error"]["code"] == "mandate_closed"


def test_an_unknown_reference_is_404(alice):
    response = mandate_step(alice, "submit-otp", "mandate-unknown", otp="123456")

    assert response.status_code == 404
    assert response.json()["error"]["code"] == "reference_not_found"


@postgres_only
@pytest.mark.django_db(transaction=True)
def test_concurrent_wrong_otps_get_exactly_five_tries(monkeypatch):
    who = sign_in(CustomerFactory())
    reference = initiate_mandate(who, "0123456780").json()["reference"]
    sandbox = get_processor()
    tried = []
    real_submit = sandbox.submit_otp

    def counting_submit(**kwargs):
        tried.append(kwargs["otp"])
        return real_submit(**kwargs)

    monkeypatch.setattr(sandbox, "submit_otp", counting_submit)
    barrier = threading.Barrier(8)
    codes = []

    def guess(otp):
        client = sign_in(who.customer)
        barrier.wait()
        try:
            reply = mandate_step(client, "submit-otp", reference, otp=otp)
            codes.append(reply.json()["error"]["code"])
        finally:
            connection.close()

    threads = [threading.Thread(target=guess, args=(f"00000{i}",)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert len(tried) == 5
    assert sorted(codes) == ["invalid_otp"] * 5 + ["otp_attempts_exhausted"] * 3
    mandate = BankMandate.objects.get(reference=reference)
    assert (mandate.status, mandate.otp_failures) == (BankMandate.Status.DEAD, 5)


def test_an_otp_still_being_checked_is_not_counted_as_a_wrong_one(alice, monkeypatch):
    reference = initiate_mandate(alice, "0123456780").json()["reference"]
    for _ in range(4):
        mandate_step(alice, "submit-otp", reference, otp="000000")
    sandbox = get_processor()
    real_submit = sandbox.submit_otp
    meanwhile = []

    def submit_otp(**kwargs):
        if not meanwhile:
            # While the bank checks this OTP, the customer's second tap arrives.
            meanwhile.append(mandate_step(alice, "submit-otp", reference, otp="123456"))
        return real_submit(**kwargs)

    monkeypatch.setattr(sandbox, "submit_otp", submit_otp)
    # The second tap does not wait for the first (the default waits a moment).
    monkeypatch.setattr(mandates, "STEP_WAIT_SECONDS", 0, raising=False)

    done = mandate_step(alice, "submit-otp", reference, otp="123456")

    assert done.json()["next_action"] == "success"
    [second] = meanwhile
    assert second.status_code == 409
    assert second.json()["error"]["code"] == "mandate_step_in_progress"
    assert "initiate" not in second.json()["error"]["message"]
    mandate = BankMandate.objects.get(reference=reference)
    assert (mandate.status, mandate.otp_failures) == (BankMandate.Status.SUCCEEDED, 4)
    assert mandate_step(alice, "submit-otp", reference, otp="123456").json() == (
        done.json()
    )
