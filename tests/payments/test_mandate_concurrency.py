"""Bank mandate steps sent concurrently for one reference (issue 14, item 8): the
bank sees one step at a time, the mandate completes once, and a request that
lost the race is told the outcome or "in progress", never "wrong OTP"."""

import pytest

from payments.gateway.processors import get_processor
from payments.models import BankMandate, PaymentMethod, ProcessorCharge

from ..concurrency import run_concurrently
from ..factories import CustomerFactory
from .conftest import initiate_mandate, mandate_step, postgres_only, sign_in

THREADS = 30
RIGHT_OTP = "123456"


def counting_otp_submissions(monkeypatch) -> list[str]:
    """The OTPs that reached the (sandbox) processor."""
    sandbox = get_processor()
    real_submit = sandbox.submit_otp
    submitted = []

    def submit_otp(**kwargs):
        submitted.append(kwargs["otp"])
        return real_submit(**kwargs)

    monkeypatch.setattr(sandbox, "submit_otp", submit_otp)
    return submitted


@postgres_only
@pytest.mark.django_db(transaction=True)
def test_thirty_concurrent_right_otps_complete_the_mandate_once(monkeypatch):
    who = sign_in(CustomerFactory())
    reference = initiate_mandate(who, "0123456780").json()["reference"]
    submitted = counting_otp_submissions(monkeypatch)

    def submit():
        reply = mandate_step(
            sign_in(who.customer), "submit-otp", reference, otp=RIGHT_OTP
        )
        return reply.status_code, reply.json()

    answers = run_concurrently(submit, THREADS)

    assert not [a for a in answers if isinstance(a, BaseException)], answers
    completed = [body for status, body in answers if status == 200]
    others = [(status, body) for status, body in answers if status != 200]
    assert completed, answers
    # Every 200 is the winner's answer: the saved method, the same for all.
    assert all(body == completed[0] for body in completed)
    assert completed[0]["next_action"] == "success"
    assert completed[0]["data"]["type"] == "bank"
    # Every other answer says "in progress", never a dead reference or a 422.
    assert all(
        status == 409 and body["error"]["code"] == "mandate_step_in_progress"
        for status, body in others
    ), others
    assert submitted == [RIGHT_OTP]  # one submission reached the bank
    assert PaymentMethod.objects.count() == 1
    assert ProcessorCharge.objects.count() == 1
    mandate = BankMandate.objects.get(reference=reference)
    assert mandate.status == BankMandate.Status.SUCCEEDED
    assert mandate.otp_failures == 0
    assert mandate.payment_method.public_id == completed[0]["data"]["id"]


@postgres_only
@pytest.mark.django_db(transaction=True)
def test_concurrent_right_otps_after_four_wrong_ones_are_not_told_the_reference_died(
    monkeypatch,
):
    who = sign_in(CustomerFactory())
    reference = initiate_mandate(who, "0123456780").json()["reference"]
    for _ in range(4):
        assert (
            mandate_step(who, "submit-otp", reference, otp="000000").status_code == 400
        )
    submitted = counting_otp_submissions(monkeypatch)

    def submit():
        reply = mandate_step(
            sign_in(who.customer), "submit-otp", reference, otp=RIGHT_OTP
        )
        return reply.status_code, reply.json()

    answers = run_concurrently(submit, 10)

    assert not [a for a in answers if isinstance(a, BaseException)], answers
    codes = {
        (status, body.get("next_action") or body["error"]["code"])
        for status, body in answers
    }
    assert codes <= {(200, "success"), (409, "mandate_step_in_progress")}, answers
    assert submitted == [RIGHT_OTP]
    mandate = BankMandate.objects.get(reference=reference)
    assert (mandate.status, mandate.otp_failures) == (BankMandate.Status.SUCCEEDED, 4)
