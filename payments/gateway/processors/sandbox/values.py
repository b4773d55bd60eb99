"""The sandbox's magic values (DESIGN section 9; docs/sandbox.md)."""

import json
from functools import cache
from pathlib import Path

from ...models import SandboxAuthorization
from ..base import Bank, ChargeStatus

BANKS_FILE = Path(__file__).resolve().parents[2] / "data" / "banks_ng.json"

CARD_SUCCEEDS = "4084084084084081"
CARD_INSUFFICIENT_FUNDS = "4084080000000409"
CARD_DECLINED = "4000000000000002"
# Authorizes and its charges succeed, but a refund of one of them fails
# (DESIGN section 14).
CARD_REFUNDS_FAIL = "4084080000005408"
# Authorizes with an expiry at the end of the month it is added in; charges
# after that month fail `card_expired` (DESIGN section 15).
CARD_EXPIRES_THIS_MONTH = "4084080000000011"
# Only ever has part of the money (DESIGN section 15): full charges fail
# `insufficient_funds`; a partial debit collects PARTIAL_FUNDS_PERCENT of what
# it asks for (rounded down to the kobo), when that is at least its `at_least`.
CARD_PARTIAL_FUNDS = "4084080000000060"
PARTIAL_FUNDS_PERCENT = 60
# Authorizes; the first two attempts of each installment fail
# `insufficient_funds`, the third (and any later one) succeeds (DESIGN section
# 15: the sandbox clock's walkthrough of retries).
CARD_FAILS_TWICE = "4084080000000222"
# Authorizes and its charges succeed; each is disputed a minute later (DESIGN
# section 19).
CARD_DISPUTED = "4084080000007777"
CARDS = {
    CARD_SUCCEEDS: SandboxAuthorization.Behaviour.SUCCEEDS,
    CARD_INSUFFICIENT_FUNDS: SandboxAuthorization.Behaviour.INSUFFICIENT_FUNDS,
    CARD_DECLINED: None,
    CARD_REFUNDS_FAIL: SandboxAuthorization.Behaviour.REFUNDS_FAIL,
    CARD_EXPIRES_THIS_MONTH: SandboxAuthorization.Behaviour.SUCCEEDS,
    CARD_PARTIAL_FUNDS: SandboxAuthorization.Behaviour.PARTIAL_FUNDS,
    CARD_FAILS_TWICE: SandboxAuthorization.Behaviour.FAILS_TWICE,
    CARD_DISPUTED: SandboxAuthorization.Behaviour.DISPUTED,
}
CORRECT_OTP = "123456"
# Last digit of a bank account number -> the first step of its mandate flow.
MANDATE_FIRST_STEP = {
    "0": ChargeStatus.SEND_OTP,
    "1": ChargeStatus.SEND_BIRTHDAY,
    "2": ChargeStatus.SEND_PHONE,
    "3": ChargeStatus.OPEN_URL,
    "4": ChargeStatus.SEND_OTP,
}
# Accounts ending so: the bank step succeeds with an authorization that cannot
# be charged again (Paystack's `reusable: false`), so the service continues with
# a direct-debit authorization, consented to on the sandbox's direct-debit page.
ONE_OFF_AUTHORIZATION_DIGIT = "4"
FAILING_PAYOUT_ACCOUNT_DIGIT = "9"

DISPLAY_TEXT = {
    ChargeStatus.SEND_OTP: "Enter the OTP sent to the phone number of the account "
    "(sandbox: 123456).",
    ChargeStatus.SEND_BIRTHDAY: "Enter the account holder's date of birth.",
    ChargeStatus.SEND_PHONE: "Enter the phone number registered with the account.",
    ChargeStatus.OPEN_URL: "Open the link to authorize the mandate with your bank.",
    ChargeStatus.SUCCESS: "Mandate authorized.",
}
NEXT_AFTER = {
    ChargeStatus.SEND_BIRTHDAY: ChargeStatus.SEND_OTP,
    ChargeStatus.SEND_PHONE: ChargeStatus.SEND_OTP,
    ChargeStatus.SEND_OTP: ChargeStatus.SUCCESS,
    ChargeStatus.OPEN_URL: ChargeStatus.SUCCESS,
}


class SandboxInputError(ValueError):
    """What a person typed on a sandbox page is not a sandbox magic value."""


@cache
def sandbox_banks() -> tuple[Bank, ...]:
    return tuple(
        Bank(name=item["name"], code=item["code"])
        for item in json.loads(BANKS_FILE.read_text())
    )


def card_brand(number: str) -> str:
    if number.startswith("4"):
        return "visa"
    if number[:2] in {"51", "52", "53", "54", "55"}:
        return "mastercard"
    return "verve"
