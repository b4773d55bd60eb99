"""Paystack's answers as its API sends them (for `responses`), its base URL and
bank list."""

AUTHORIZATION = {
    "authorization_code": "AUTH_8dfhjjdt",
    "bin": "408408",
    "last4": "4081",
    "exp_month": "12",
    "exp_year": "2030",
    "channel": "card",
    "card_type": "visa ",
    "bank": "TEST BANK",
    "country_code": "NG",
    "brand": "visa",
    "reusable": True,
    "signature": "SIG_uSYN4fv1adlAuoij8QXh",
    "account_name": None,
}


TRANSACTION = {
    "id": 4099260516,
    "status": "success",
    "reference": "card-abc",
    "amount": 5000,
    "currency": "NGN",
    "gateway_response": "Successful",
    "paid_at": "2024-08-22T09:15:02.000Z",
    "channel": "card",
    "customer": {
        "id": 181873746,
        "customer_code": "CUS_1rkzaqsv4rrhqo6",
        "email": "a@b.ng",
    },
    "authorization": AUTHORIZATION,
}


# `POST /charge` with `bank_transfer`, as Paystack documents its answer: the
# account that takes this one transfer until `account_expires_at`.
BANK_TRANSFER_CHARGE = {
    "status": True,
    "message": "Charge attempted",
    "data": {
        "status": "pending_bank_transfer",
        "display_text": "Please make a transfer to the account specified",
        "reference": "inst_1_p1",
        "amount": 250000,
        "account_name": "PAYSTACK CHECKOUT",
        "account_number": "1231084927",
        "bank": {"slug": "test-bank", "name": "Test Bank", "id": 24},
        "account_expires_at": "2026-11-27T14:40:55.000Z",
    },
}

# `POST /charge` with `ussd`: the code the customer dials.
USSD_CHARGE = {
    "status": True,
    "message": "Charge attempted",
    "data": {
        "reference": "inst_1_p1",
        "status": "pay_offline",
        "display_text": "Please dial *737*33*4*18791# on your mobile phone to "
        "complete the transaction",
        "ussd_code": "*737*33*4*18791#",
    },
}


def ok(data, message="OK", **extra):
    return {"status": True, "message": message, "data": data, **extra}


def refused(message, code="", status=400):
    body = {"status": False, "message": message, "type": "validation_error"}
    if code:
        body["code"] = code
    return status, body


BASE = "https://api.paystack.co"


BANKS = ok(
    [{"name": "Access Bank", "code": "044"}, {"name": "Zenith Bank", "code": "057"}]
)


def no_refund_yet(fake):
    """`GET /refund?transaction=`: the verification charge has no refund yet
    (asked before any refund, to find one whose answer was lost)."""
    fake.add(
        "GET",
        f"{BASE}/refund",
        json=ok([], "Refunds retrieved", meta={"total": 0, "page": 1, "pageCount": 1}),
    )
