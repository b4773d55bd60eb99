"""The Paystack adapter against `responses` fakes of Paystack's documented replies:
every call it makes, on success, on Paystack's refusal, on a timeout, on a 5xx
and on a malformed body."""

import json
from dataclasses import dataclass, field
from datetime import UTC, date, datetime

import pytest
import requests
import responses

from payments.gateway.errors import (
    AccountNotResolved,
    InvalidOtp,
    ProcessorError,
    ProcessorRefused,
    ProcessorTimeout,
)
from payments.gateway.processors import FailureReason, TransactionStatus
from payments.gateway.processors.paystack import PaystackProcessor

from .paystack import (
    AUTHORIZATION,
    BANK_TRANSFER_CHARGE,
    TRANSACTION,
    USSD_CHARGE,
    ok,
    refused,
)

BASE = "https://api.paystack.co"
SECRET = "sk_test_0123456789"
EXPIRES = datetime(2026, 11, 27, 14, 40, 0, 954000, tzinfo=UTC)


@dataclass
class Call:
    """One adapter method, the HTTP request it makes, and a documented reply."""

    name: str
    method: str
    path: str
    kwargs: dict
    reply: dict
    sent: dict | None = None  # the JSON body Paystack must receive
    params: dict = field(default_factory=dict)


CALLS = [
    Call(
        "initialize_transaction",
        "POST",
        "/transaction/initialize",
        {
            "email": "a@b.ng",
            "amount": 5000,
            "reference": "card-abc",
            "callback_url": "https://shop.ng/cb",
        },
        ok(
            {
                "authorization_url": "https://checkout.paystack.com/0peioxfhpn",
                "access_code": "0peioxfhpn",
                "reference": "card-abc",
            },
            "Authorization URL created",
        ),
        sent={
            "email": "a@b.ng",
            "amount": 5000,
            "currency": "NGN",
            "reference": "card-abc",
            "callback_url": "https://shop.ng/cb",
            "channels": ["card"],
            "metadata": {},
        },
    ),
    Call(
        "verify_transaction",
        "GET",
        "/transaction/verify/card-abc",
        {"reference": "card-abc"},
        ok(TRANSACTION, "Verification successful"),
    ),
    Call(
        "charge_authorization",
        "POST",
        "/transaction/charge_authorization",
        {
            "email": "a@b.ng",
            "amount": 250000,
            "authorization_code": "AUTH_8dfhjjdt",
            "reference": "inst-1-a1",
        },
        ok(
            {**TRANSACTION, "reference": "inst-1-a1", "amount": 250000},
            "Charge attempted",
        ),
        sent={
            "email": "a@b.ng",
            "amount": 250000,
            "currency": "NGN",
            "authorization_code": "AUTH_8dfhjjdt",
            "reference": "inst-1-a1",
            "metadata": {},
        },
    ),
    Call(
        "partial_debit",
        "POST",
        "/transaction/partial_debit",
        {
            "email": "a@b.ng",
            "amount": 250000,
            "at_least": 125000,
            "authorization_code": "AUTH_8dfhjjdt",
            "reference": "inst-1-a4p",
        },
        # Paystack answers with the transaction: `amount` is what was taken.
        ok(
            {**TRANSACTION, "reference": "inst-1-a4p", "amount": 150000},
            "Charge attempted",
        ),
        sent={
            "authorization_code": "AUTH_8dfhjjdt",
            "currency": "NGN",
            "amount": 250000,
            "email": "a@b.ng",
            "at_least": 125000,
            "reference": "inst-1-a4p",
        },
    ),
    Call(
        "charge_bank",
        "POST",
        "/charge",
        {
            "email": "a@b.ng",
            "amount": 5000,
            "reference": "mandate-1",
            "bank_code": "057",
            "account_number": "0000000000",
        },
        ok(
            {
                "reference": "mandate-1",
                "status": "send_otp",
                "display_text": "Please enter the OTP sent to your phone",
            },
            "Charge attempted",
        ),
        sent={
            "email": "a@b.ng",
            "amount": 5000,
            "currency": "NGN",
            "reference": "mandate-1",
            "bank": {"code": "057", "account_number": "0000000000"},
        },
    ),
    Call(
        "charge_offline",
        "POST",
        "/charge",
        {
            "email": "a@b.ng",
            "amount": 250000,
            "reference": "inst_1_p1",
            "channel": "bank_transfer",
            "expires_at": EXPIRES,
        },
        BANK_TRANSFER_CHARGE,
        sent={
            "email": "a@b.ng",
            "amount": 250000,
            "currency": "NGN",
            "reference": "inst_1_p1",
            "metadata": {},
            "bank_transfer": {"account_expires_at": "2026-11-27T14:40:00.954Z"},
        },
    ),
    Call(
        "submit_otp",
        "POST",
        "/charge/submit_otp",
        {"reference": "mandate-1", "otp": "123456"},
        ok(
            {
                **TRANSACTION,
                "reference": "mandate-1",
                "channel": "bank",
                "authorization": {
                    **AUTHORIZATION,
                    "channel": "bank",
                    "bank": "Zenith Bank",
                    "last4": "0000",
                },
            },
            "Charge attempted",
        ),
        sent={"reference": "mandate-1", "otp": "123456"},
    ),
    Call(
        "submit_birthday",
        "POST",
        "/charge/submit_birthday",
        {"reference": "mandate-1", "birthday": date(1990, 4, 1)},
        ok(
            {"reference": "mandate-1", "status": "send_otp", "display_text": "OTP sent"}
        ),
        sent={"reference": "mandate-1", "birthday": "1990-04-01"},
    ),
    Call(
        "submit_phone",
        "POST",
        "/charge/submit_phone",
        {"reference": "mandate-1", "phone": "08012345678"},
        ok(
            {"reference": "mandate-1", "status": "send_otp", "display_text": "OTP sent"}
        ),
        sent={"reference": "mandate-1", "phone": "08012345678"},
    ),
    Call(
        "check_charge",
        "GET",
        "/charge/mandate-1",
        {"reference": "mandate-1"},
        ok(
            {"reference": "mandate-1", "status": "open_url", "url": "https://bank.ng/x"}
        ),
    ),
    Call(
        "initialize_direct_debit",
        "POST",
        "/customer/authorization/initialize",
        {
            "email": "a@b.ng",
            "callback_url": "https://pay.shop.ng/payment-methods/mandate-authorized",
            "bank_code": "057",
            "account_number": "0000000000",
        },
        ok(
            {
                "redirect_url": "https://link.paystack.co/82t4mp5b5mfn51h",
                "access_code": "82t4mp5b5mfn51h",
                "reference": "dfbzfotsrbv4n5s82t4mp5b5mfn51h",
            },
            "Authorization initialized",
        ),
        sent={
            "email": "a@b.ng",
            "channel": "direct_debit",
            "callback_url": "https://pay.shop.ng/payment-methods/mandate-authorized",
            "account": {"number": "0000000000", "bank_code": "057"},
        },
    ),
    Call(
        "verify_direct_debit",
        "GET",
        "/customer/authorization/verify/dfbzfotsrbv4n5s82t4mp5b5mfn51h",
        {"reference": "dfbzfotsrbv4n5s82t4mp5b5mfn51h"},
        ok(
            {
                "authorization_code": "AUTH_JV4T9Wawdj",
                "channel": "direct_debit",
                "bank": "Zenith Bank",
                "active": True,
                "customer": {"code": "CUS_24lze1c8i2zl76y", "email": "a@b.ng"},
            },
            "Authorization retrieved successfully",
        ),
    ),
    Call(
        "refund",
        "POST",
        "/refund",
        {"transaction_reference": "card-abc", "amount": 5000},
        ok(
            {
                "transaction": {
                    "id": 4099260516,
                    "reference": "card-abc",
                    "amount": 5000,
                },
                "amount": 5000,
                "currency": "NGN",
                "status": "pending",
                "id": 3018284,
            },
            "Refund has been queued for processing",
        ),
        sent={"transaction": "card-abc", "amount": 5000},
    ),
    Call(
        "fetch_refund",
        "GET",
        "/refund/3018284",
        {"refund_id": "3018284"},
        ok(
            {
                "integration": 428626,
                "transaction": 4099260516,
                "domain": "test",
                "amount": 5000,
                "deducted_amount": 5000,
                "fully_deducted": True,
                "currency": "NGN",
                "channel": "card",
                "status": "processed",
                "refunded_at": "2024-08-22T10:02:11.000Z",
                "id": 3018284,
            },
            "Refund retrieved",
        ),
    ),
    Call(
        "list_banks",
        "GET",
        "/bank",
        {},
        ok(
            [
                {"name": "Access Bank", "code": "044", "active": True},
                {"name": "Old Bank", "code": "999", "active": False},
                {"name": "Zenith Bank", "code": "057", "active": True},
            ]
        ),
        params={"country": "nigeria", "pay_with_bank": "true", "perPage": "100"},
    ),
    Call(
        "resolve_account",
        "GET",
        "/bank/resolve",
        {"bank_code": "058", "account_number": "0001234567"},
        ok({"account_number": "0001234567", "account_name": "DOE JANE", "bank_id": 9}),
        params={"account_number": "0001234567", "bank_code": "058"},
    ),
    Call(
        "create_transfer_recipient",
        "POST",
        "/transferrecipient",
        {"name": "Shop 1", "bank_code": "058", "account_number": "0001234567"},
        ok(
            {
                "active": True,
                "name": "Shop 1",
                "recipient_code": "RCP_t0ya41mp35flk40",
                "type": "nuban",
                "details": {
                    "account_number": "0001234567",
                    "bank_code": "058",
                    "bank_name": "Guaranty Trust Bank",
                },
            },
            "Transfer recipient created successfully",
        ),
        sent={
            "type": "nuban",
            "name": "Shop 1",
            "account_number": "0001234567",
            "bank_code": "058",
            "currency": "NGN",
        },
    ),
    Call(
        "transfer",
        "POST",
        "/transfer",
        {
            "amount": 500000,
            "recipient_code": "RCP_t0ya41mp35flk40",
            "reference": "po_abc123abc123abc1",
            "reason": "Payout",
        },
        ok(
            {
                "reference": "po_abc123abc123abc1",
                "amount": 500000,
                "status": "pending",
                "transfer_code": "TRF_1ptvuv321ahaa7q",
            },
            "Transfer has been queued",
        ),
        sent={
            "source": "balance",
            "amount": 500000,
            "currency": "NGN",
            "recipient": "RCP_t0ya41mp35flk40",
            "reference": "po_abc123abc123abc1",
            "reason": "Payout",
        },
    ),
    Call(
        "verify_transfer",
        "GET",
        "/transfer/verify/po_abc123abc123abc1",
        {"reference": "po_abc123abc123abc1"},
        ok(
            {
                "reference": "po_abc123abc123abc1",
                "amount": 500000,
                "status": "success",
                "transfer_code": "TRF_1ptvuv321ahaa7q",
            }
        ),
    ),
    Call(
        "list_revoked_mandates",
        "GET",
        "/directdebit/mandate-authorizations",
        {},
        ok(
            [
                {
                    "status": "revoked",
                    "mandate_id": 1,
                    "authorization_code": "AUTH_revoked1",
                    "account_number": "0123456789",
                    "bank_code": "058",
                    "authorized_at": "2024-05-01T10:00:00.000Z",
                }
            ],
            meta={"next": None},
        ),
        params={"status": "revoked", "perPage": "100"},
    ),
    Call(
        "deactivate_authorization",
        "POST",
        "/customer/deactivate_authorization",
        {"authorization_code": "AUTH_8dfhjjdt"},
        ok(None, "Authorization has been deactivated"),
        sent={"authorization_code": "AUTH_8dfhjjdt"},
    ),
]
BY_NAME = {call.name: call for call in CALLS}
# Calls whose reply carries no `data` Paystack's answer is read from: only the
# `status` and `message` count.
NO_DATA = {"deactivate_authorization"}


@pytest.fixture
def paystack():
    sleeps = []
    processor = PaystackProcessor(base_url=BASE, secret_key=SECRET, sleep=sleeps.append)
    processor.sleeps = sleeps
    return processor


@pytest.fixture
def fake():
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mock:
        yield mock


def register(fake, call: Call, *, status=200, json_body=None, body=None):
    kwargs = {"status": status}
    if body is not None:
        kwargs["body"] = body
    else:
        kwargs["json"] = call.reply if json_body is None else json_body
    fake.add(call.method, BASE + call.path, **kwargs)


def invoke(processor, call: Call):
    return getattr(processor, call.name)(**call.kwargs)


# -- every call, on success ---------------------------------------------------


@pytest.mark.parametrize("call", CALLS, ids=lambda c: c.name)
def test_each_call_sends_the_documented_request_with_key_and_timeout(
    paystack, fake, call
):
    register(fake, call)

    invoke(paystack, call)

    [sent] = fake.calls
    assert sent.request.method == call.method
    assert sent.request.headers["Authorization"] == f"Bearer {SECRET}"
    assert sent.request.req_kwargs["timeout"] == PaystackProcessor.timeout
    if call.sent is not None:
        assert json.loads(sent.request.body) == call.sent
    if call.params:
        assert sent.request.params == call.params


def test_initialize_returns_the_authorization_url(paystack, fake):
    register(fake, BY_NAME["initialize_transaction"])

    result = invoke(paystack, BY_NAME["initialize_transaction"])

    assert result.authorization_url == "https://checkout.paystack.com/0peioxfhpn"
    assert result.reference == "card-abc"


def test_verify_returns_the_outcome_and_the_card_authorization(paystack, fake):
    register(fake, BY_NAME["verify_transaction"])

    result = invoke(paystack, BY_NAME["verify_transaction"])

    assert result.status == TransactionStatus.SUCCESS
    assert result.amount == 5000
    assert result.paid_at.year == 2024
    auth = result.authorization
    assert (auth.authorization_code, auth.brand, auth.last4) == (
        "AUTH_8dfhjjdt",
        "visa",
        "4081",
    )
    assert auth.signature == "SIG_uSYN4fv1adlAuoij8QXh"
    assert auth.reusable is True


def test_charge_authorization_returns_success(paystack, fake):
    register(fake, BY_NAME["charge_authorization"])

    result = invoke(paystack, BY_NAME["charge_authorization"])

    assert result.succeeded
    assert result.amount == 250000


def test_a_partial_debit_returns_what_it_collected(paystack, fake):
    register(fake, BY_NAME["partial_debit"])

    result = invoke(paystack, BY_NAME["partial_debit"])

    assert result.succeeded
    assert (result.reference, result.amount) == ("inst-1-a4p", 150000)


def test_a_partial_debit_that_finds_too_little_is_a_failed_result(paystack, fake):
    declined = {
        **TRANSACTION,
        "reference": "inst-1-a4p",
        "status": "failed",
        "gateway_response": "Insufficient Funds",
    }
    register(fake, BY_NAME["partial_debit"], json_body=ok(declined))

    result = invoke(paystack, BY_NAME["partial_debit"])

    assert result.status == TransactionStatus.FAILED
    assert result.failure_reason == FailureReason.INSUFFICIENT_FUNDS


def test_a_partial_debits_duplicate_reference_is_raised(paystack, fake):
    status, body = refused("Duplicate Transaction Reference")
    register(fake, BY_NAME["partial_debit"], status=status, json_body=body)

    with pytest.raises(ProcessorRefused, match="Duplicate Transaction Reference"):
        invoke(paystack, BY_NAME["partial_debit"])


def test_the_charge_api_returns_the_next_step(paystack, fake):
    register(fake, BY_NAME["charge_bank"])

    step = invoke(paystack, BY_NAME["charge_bank"])

    assert step.status == "send_otp"
    assert step.display_text == "Please enter the OTP sent to your phone"


def test_submit_otp_success_carries_the_bank_authorization(paystack, fake):
    register(fake, BY_NAME["submit_otp"])

    step = invoke(paystack, BY_NAME["submit_otp"])

    assert step.status == "success"
    assert step.authorization.channel == "bank"
    assert step.authorization.authorization_code == "AUTH_8dfhjjdt"


@pytest.mark.parametrize("name", ["submit_birthday", "submit_phone"])
def test_birthday_and_phone_lead_to_the_otp(paystack, fake, name):
    register(fake, BY_NAME[name])

    assert invoke(paystack, BY_NAME[name]).status == "send_otp"


def test_check_charge_returns_the_open_url(paystack, fake):
    register(fake, BY_NAME["check_charge"])

    step = invoke(paystack, BY_NAME["check_charge"])

    assert (step.status, step.url) == ("open_url", "https://bank.ng/x")


def test_refund_returns_the_refund(paystack, fake):
    register(fake, BY_NAME["refund"])

    refund = invoke(paystack, BY_NAME["refund"])

    assert (refund.refund_id, refund.amount, refund.status) == (
        "3018284",
        5000,
        "pending",
    )
    assert refund.transaction_reference == "card-abc"


def test_fetch_refund_returns_where_the_refund_stands(paystack, fake):
    register(fake, BY_NAME["fetch_refund"])

    refund = invoke(paystack, BY_NAME["fetch_refund"])

    assert (refund.refund_id, refund.amount, refund.status) == (
        "3018284",
        5000,
        "processed",
    )


def test_list_banks_keeps_active_banks(paystack, fake):
    register(fake, BY_NAME["list_banks"])

    banks = invoke(paystack, BY_NAME["list_banks"])

    assert [(b.name, b.code) for b in banks] == [
        ("Access Bank", "044"),
        ("Zenith Bank", "057"),
    ]


def test_resolve_account_returns_the_name(paystack, fake):
    register(fake, BY_NAME["resolve_account"])

    assert invoke(paystack, BY_NAME["resolve_account"]).account_name == "DOE JANE"


def test_transfer_recipient_transfer_and_verify(paystack, fake):
    for name in ("create_transfer_recipient", "transfer", "verify_transfer"):
        register(fake, BY_NAME[name])

    recipient = invoke(paystack, BY_NAME["create_transfer_recipient"])
    sent = invoke(paystack, BY_NAME["transfer"])
    settled = invoke(paystack, BY_NAME["verify_transfer"])

    assert recipient.recipient_code == "RCP_t0ya41mp35flk40"
    assert (sent.status, sent.conclusive) == ("pending", False)
    assert (settled.status, settled.conclusive) == ("success", True)


def test_revoked_mandates_follow_the_cursor(paystack, fake):
    call = BY_NAME["list_revoked_mandates"]
    first_page = {**call.reply, "meta": {"next": "cursor2"}}
    second_page = ok(
        [{"authorization_code": "AUTH_revoked2", "status": "revoked"}],
        meta={"next": None},
    )
    fake.add(
        "GET",
        BASE + call.path,
        json=second_page,
        match=[
            responses.matchers.query_param_matcher({**call.params, "next": "cursor2"})
        ],
    )
    fake.add(
        "GET",
        BASE + call.path,
        json=first_page,
        match=[responses.matchers.query_param_matcher(call.params)],
    )

    mandates = paystack.list_revoked_mandates()

    assert [m.authorization_code for m in mandates] == [
        "AUTH_revoked1",
        "AUTH_revoked2",
    ]


# -- every call, when Paystack refuses -----------------------------------------

GENERIC_REFUSALS = [
    "initialize_transaction",
    "charge_bank",
    "charge_offline",
    "initialize_direct_debit",
    "submit_birthday",
    "submit_phone",
    "check_charge",
    "refund",
    "list_banks",
    "create_transfer_recipient",
    "transfer",
    "list_revoked_mandates",
]


@pytest.mark.parametrize("name", GENERIC_REFUSALS)
def test_a_refusal_is_a_processor_refused_error_quoting_paystack(paystack, fake, name):
    status, body = refused("Invalid Amount Sent")
    register(fake, BY_NAME[name], status=status, json_body=body)

    with pytest.raises(ProcessorRefused) as error:
        invoke(paystack, BY_NAME[name])

    assert "Invalid Amount Sent" in error.value.message
    assert error.value.http_status == 422


@pytest.mark.parametrize(
    "name", ["verify_transaction", "verify_transfer", "fetch_refund"]
)
def test_verifying_an_unknown_reference_answers_none(paystack, fake, name):
    status, body = refused("Transaction reference not found", "transaction_not_found")
    register(fake, BY_NAME[name], status=status, json_body=body)

    assert invoke(paystack, BY_NAME[name]) is None


def test_verify_reports_a_failed_card_with_its_reason(paystack, fake):
    failed = {**TRANSACTION, "status": "failed", "gateway_response": "Declined"}
    register(fake, BY_NAME["verify_transaction"], json_body=ok(failed))

    result = invoke(paystack, BY_NAME["verify_transaction"])

    assert result.status == TransactionStatus.FAILED
    assert result.failure_reason == FailureReason.DECLINED


def test_initialize_direct_debit_returns_the_redirect_url_and_paystacks_reference(
    paystack, fake
):
    register(fake, BY_NAME["initialize_direct_debit"])

    request = invoke(paystack, BY_NAME["initialize_direct_debit"])

    assert request.redirect_url == "https://link.paystack.co/82t4mp5b5mfn51h"
    assert request.reference == "dfbzfotsrbv4n5s82t4mp5b5mfn51h"


@pytest.mark.parametrize(
    ("active", "code", "chargeable"),
    [(True, "AUTH_JV4T9Wawdj", True), (False, "AUTH_JV4T9Wawdj", False)]
    + [(True, None, False), ("true", "AUTH_JV4T9Wawdj", False)],
)
def test_a_direct_debit_is_chargeable_only_when_active_with_a_code(
    paystack, fake, active, code, chargeable
):
    call = BY_NAME["verify_direct_debit"]
    data = {**call.reply["data"], "active": active, "authorization_code": code}
    register(fake, call, json_body=ok(data))

    found = invoke(paystack, call)

    assert found.chargeable is chargeable
    assert found.authorization_code == (code or "")
    assert found.bank == "Zenith Bank"


def test_a_direct_debit_paystack_does_not_know_answers_none(paystack, fake):
    register(
        fake,
        BY_NAME["verify_direct_debit"],
        status=404,
        json_body={
            "status": False,
            "message": "Authorization does not exist or does not belong to integration",
        },
    )

    assert invoke(paystack, BY_NAME["verify_direct_debit"]) is None


def test_a_declined_charge_authorization_is_a_failed_result(paystack, fake):
    declined = {
        **TRANSACTION,
        "status": "failed",
        "gateway_response": "Insufficient Funds",
    }
    register(fake, BY_NAME["charge_authorization"], json_body=ok(declined))

    result = invoke(paystack, BY_NAME["charge_authorization"])

    assert not result.succeeded
    assert result.failure_reason == FailureReason.INSUFFICIENT_FUNDS


def test_a_dead_authorization_is_a_failed_result_saying_so(paystack, fake):
    status, body = refused("Authorization code is invalid")
    register(fake, BY_NAME["charge_authorization"], status=status, json_body=body)

    result = invoke(paystack, BY_NAME["charge_authorization"])

    assert result.status == TransactionStatus.FAILED
    assert result.failure_reason == FailureReason.AUTHORIZATION_REVOKED


def test_a_duplicate_reference_is_raised_not_reported_as_a_decline(paystack, fake):
    status, body = refused("Duplicate Transaction Reference")
    register(fake, BY_NAME["charge_authorization"], status=status, json_body=body)

    with pytest.raises(ProcessorRefused, match="Duplicate Transaction Reference"):
        invoke(paystack, BY_NAME["charge_authorization"])


def test_a_wrong_otp_is_invalid_otp(paystack, fake):
    status, body = refused("Invalid OTP provided")
    register(fake, BY_NAME["submit_otp"], status=status, json_body=body)

    with pytest.raises(InvalidOtp):
        invoke(paystack, BY_NAME["submit_otp"])


def test_being_asked_for_the_otp_again_is_invalid_otp(paystack, fake):
    again = ok(
        {"reference": "mandate-1", "status": "send_otp", "display_text": "Try again"}
    )
    register(fake, BY_NAME["submit_otp"], json_body=again)

    with pytest.raises(InvalidOtp, match="Try again"):
        invoke(paystack, BY_NAME["submit_otp"])


def test_an_unresolvable_account_is_account_not_resolved(paystack, fake):
    status, body = refused(
        "Could not resolve account name. Check parameters or try again.", status=422
    )
    register(fake, BY_NAME["resolve_account"], status=status, json_body=body)

    with pytest.raises(AccountNotResolved, match="Could not resolve account name"):
        invoke(paystack, BY_NAME["resolve_account"])


# -- every call, on timeout, 5xx and a malformed body ---------------------------


def attempts(call: Call) -> int:
    """GETs are idempotent and tried twice; POSTs are never repeated."""
    return 2 if call.method == "GET" else 1


@pytest.mark.parametrize("call", CALLS, ids=lambda c: c.name)
def test_a_timeout_is_a_processor_timeout(paystack, fake, call):
    fake.add(call.method, BASE + call.path, body=requests.exceptions.ReadTimeout())

    with pytest.raises(ProcessorTimeout) as error:
        invoke(paystack, call)

    assert error.value.http_status == 504
    assert "did not answer" in error.value.message
    assert len(fake.calls) == attempts(call)


@pytest.mark.parametrize("call", CALLS, ids=lambda c: c.name)
def test_a_connection_error_is_a_processor_error(paystack, fake, call):
    fake.add(call.method, BASE + call.path, body=requests.exceptions.ConnectionError())

    with pytest.raises(ProcessorError, match="could not be reached"):
        invoke(paystack, call)


@pytest.mark.parametrize("call", CALLS, ids=lambda c: c.name)
def test_a_5xx_is_a_processor_error_and_a_post_is_not_retried(paystack, fake, call):
    register(fake, call, status=503, body="<html>Service Unavailable</html>")

    with pytest.raises(ProcessorError) as error:
        invoke(paystack, call)

    assert error.value.http_status == 502
    assert "HTTP 503" in error.value.message
    assert len(fake.calls) == attempts(call)


def test_a_get_that_fails_once_then_answers_succeeds(paystack, fake):
    call = BY_NAME["verify_transaction"]
    register(fake, call, status=502, body="bad gateway")
    register(fake, call)

    assert invoke(paystack, call).succeeded


@pytest.mark.parametrize("call", CALLS, ids=lambda c: c.name)
@pytest.mark.parametrize(
    "body",
    [
        "<html>not json</html>",
        json.dumps(["a", "list"]),
        json.dumps({"message": "no status"}),
        json.dumps({"status": True, "message": "no data"}),
        json.dumps({"status": True, "message": "empty data", "data": {}}),
    ],
    ids=["html", "list", "no-status", "no-data", "empty-data"],
)
def test_a_malformed_body_is_a_processor_error(paystack, fake, call, body):
    if call.name in NO_DATA and '"status": true' in body:
        pytest.skip("this call reads no data from a successful reply")
    register(fake, call, body=body)

    with pytest.raises(ProcessorError, match="malformed reply"):
        invoke(paystack, call)


@pytest.mark.parametrize("status", [401, 403])
def test_a_refused_secret_key_is_a_processor_error_without_the_key(
    paystack, fake, status
):
    register(
        fake,
        BY_NAME["initialize_transaction"],
        status=status,
        json_body={"status": False, "message": "Invalid key"},
    )

    with pytest.raises(ProcessorError) as error:
        invoke(paystack, BY_NAME["initialize_transaction"])

    assert "credentials" in error.value.message
    assert SECRET not in error.value.message


# -- the pending reply ---------------------------------------------------------


def test_a_pending_charge_is_polled_a_bounded_number_of_times(paystack, fake):
    pending = ok({"reference": "mandate-1", "status": "pending"})
    register(fake, BY_NAME["charge_bank"], json_body=pending)
    register(fake, BY_NAME["check_charge"], json_body=pending)

    step = invoke(paystack, BY_NAME["charge_bank"])

    assert step.status == "pending"
    polls = [c for c in fake.calls if c.request.method == "GET"]
    assert len(polls) == PaystackProcessor.pending_polls
    assert paystack.sleeps == [PaystackProcessor.poll_interval] * len(polls)


def test_a_pending_charge_that_settles_while_polled_returns_the_settled_step(
    paystack, fake
):
    register(
        fake,
        BY_NAME["submit_otp"],
        json_body=ok({"reference": "mandate-1", "status": "pending"}),
    )
    register(fake, BY_NAME["check_charge"], json_body=BY_NAME["submit_otp"].reply)

    step = invoke(paystack, BY_NAME["submit_otp"])

    assert step.status == "success"
    assert len(paystack.sleeps) == 1


# -- pay with transfer and USSD --------------------------------------------------


def test_a_bank_transfer_charge_answers_the_account_to_pay_until_it_expires(
    paystack, fake
):
    register(fake, BY_NAME["charge_offline"])

    charge = invoke(paystack, BY_NAME["charge_offline"])

    assert charge.pending
    assert (charge.reference, charge.channel, charge.amount) == (
        "inst_1_p1",
        "bank_transfer",
        250000,
    )
    assert (charge.bank_name, charge.account_number, charge.account_name) == (
        "Test Bank",
        "1231084927",
        "PAYSTACK CHECKOUT",
    )
    # Paystack's own end of the account, not the one asked for.
    assert charge.expires_at == datetime(2026, 11, 27, 14, 40, 55, tzinfo=UTC)
    assert charge.display_text == "Please make a transfer to the account specified"
    assert charge.ussd_code == ""


def test_a_ussd_charge_sends_the_bank_and_answers_the_code_to_dial(paystack, fake):
    fake.add("POST", BASE + "/charge", json=USSD_CHARGE)

    charge = paystack.charge_offline(
        email="a@b.ng",
        amount=250000,
        reference="inst_1_p1",
        channel="ussd",
        ussd_bank="737",
        expires_at=EXPIRES,
        metadata={"plan": "plan_x"},
    )

    assert json.loads(fake.calls[0].request.body) == {
        "email": "a@b.ng",
        "amount": 250000,
        "currency": "NGN",
        "reference": "inst_1_p1",
        "metadata": {"plan": "plan_x"},
        "ussd": {"type": "737"},
    }
    assert charge.pending
    assert (charge.channel, charge.ussd_code) == ("ussd", "*737*33*4*18791#")
    assert "*737*33*4*18791#" in charge.display_text
    # Paystack gives a USSD code no end: the service's own deadline stands.
    assert charge.expires_at == EXPIRES
    assert charge.account_number == ""


@pytest.mark.parametrize(
    ("data", "said"),
    [
        (
            {"status": "failed", "message": "Bank is currently unavailable"},
            "Bank is currently unavailable",
        ),
        (
            {"status": "failed", "gateway_response": "Declined"},
            "Declined",
        ),
        ({"status": "send_otp", "display_text": "Enter the OTP"}, "Enter the OTP"),
    ],
    ids=["failed-message", "failed-gateway-response", "unexpected-status"],
)
def test_a_charge_that_does_not_wait_for_the_customer_is_a_failed_offline_charge(
    paystack, fake, data, said
):
    register(fake, BY_NAME["charge_offline"], json_body=ok({"reference": "x", **data}))

    charge = invoke(paystack, BY_NAME["charge_offline"])

    assert charge.status == "failed"
    assert not charge.pending
    assert charge.gateway_response == said
    assert (charge.reference, charge.account_number) == ("inst_1_p1", "")


@pytest.mark.parametrize(
    "missing",
    [{"account_number": None}, {"bank": None}, {"account_number": ""}],
    ids=["no-account", "no-bank", "empty-account"],
)
def test_a_pending_transfer_without_its_account_is_a_malformed_reply(
    paystack, fake, missing
):
    data = {**BANK_TRANSFER_CHARGE["data"], **missing}
    register(fake, BY_NAME["charge_offline"], json_body=ok(data))

    with pytest.raises(ProcessorError, match="malformed reply"):
        invoke(paystack, BY_NAME["charge_offline"])


def test_a_pending_ussd_charge_without_its_code_is_a_malformed_reply(paystack, fake):
    data = {**USSD_CHARGE["data"], "ussd_code": ""}
    fake.add("POST", BASE + "/charge", json=ok(data))

    with pytest.raises(ProcessorError, match="malformed reply"):
        paystack.charge_offline(
            email="a@b.ng",
            amount=250000,
            reference="inst_1_p1",
            channel="ussd",
            ussd_bank="737",
            expires_at=EXPIRES,
        )


def test_a_duplicate_offline_reference_is_raised(paystack, fake):
    status, body = refused("Duplicate Transaction Reference")
    register(fake, BY_NAME["charge_offline"], status=status, json_body=body)

    with pytest.raises(ProcessorRefused, match="Duplicate Transaction Reference"):
        invoke(paystack, BY_NAME["charge_offline"])


@pytest.mark.parametrize(
    ("channel", "bank"), [("card", ""), ("ussd", ""), ("ussd", "999")]
)
def test_an_offline_charge_by_another_channel_or_bank_calls_nobody(
    paystack, fake, channel, bank
):
    with pytest.raises(ValueError):
        paystack.charge_offline(
            email="a@b.ng",
            amount=250000,
            reference="inst_1_p1",
            channel=channel,
            ussd_bank=bank,
            expires_at=EXPIRES,
        )

    assert len(fake.calls) == 0


@pytest.mark.parametrize(
    ("paystack_channel", "channel"),
    [
        ("card", "card"),
        ("bank", "bank_account"),
        ("bank_transfer", "bank_transfer"),
        ("ussd", "ussd"),
        ("dedicated_nuban", "bank_transfer"),
        ("qr", ""),
        (None, ""),
    ],
)
def test_verify_names_the_channel_the_money_came_by(
    paystack, fake, paystack_channel, channel
):
    data = {**TRANSACTION, "channel": paystack_channel}
    register(fake, BY_NAME["verify_transaction"], json_body=ok(data))

    assert invoke(paystack, BY_NAME["verify_transaction"]).channel == channel
