"""Endpoint 9 (wallet) and the payout account endpoint."""

from io import StringIO

import pytest
from django.core.management import call_command

from payments.gateway.errors import AccountNotResolved
from payments.gateway.processors import TransferResult, get_processor
from payments.models import LedgerTransaction, Payout
from payments.payouts.services import payout_outcome_apply

from ..conftest import bearer, customer_jwt, merchant_jwt
from .conftest import PAYOUT_ACCOUNT_FAILS, credit_wallet, set_payout_account

pytestmark = pytest.mark.django_db

TRANSACTION_KEYS = {
    "id",
    "livemode",
    "type",
    "amount",
    "fee",
    "net",
    "reference",
    "resource_type",
    "resource_id",
    "description",
    "created_at",
}


def wallet_path(merchant) -> str:
    return f"/api/v1/merchant/{merchant.public_id}/wallet"


def get_wallet(api, who, **params):
    return api.get(wallet_path(who.merchant), params, **who.headers)


def test_the_wallet_has_the_documented_shape(api, payee, committed):
    credit_wallet(payee.merchant, 150_000, reference="inst_a_a1")
    credit_wallet(payee.merchant, 23_334, reference="inst_b_a1")

    response = get_wallet(api, payee)

    assert response.status_code == 200
    body = response.json()
    assert set(body) == {"ok", "data", "total"}
    assert body["ok"] is True and body["total"] == 2
    data = body["data"]
    assert set(data) == {
        "merchant_id",
        "livemode",
        "currency",
        "available_balance",
        "pending_payout",
        "total_paid_out",
        "transactions",
    }
    assert data["merchant_id"] == payee.merchant.public_id
    assert data["currency"] == "NGN"
    assert (data["available_balance"], data["pending_payout"]) == (146_250 + 22_751, 0)
    assert data["total_paid_out"] == 0
    newest = data["transactions"][0]
    assert set(newest) == TRANSACTION_KEYS
    assert newest["id"].startswith("txn_")
    assert newest["created_at"].endswith("Z")
    assert {
        key: newest[key]
        for key in (
            "type",
            "amount",
            "fee",
            "net",
            "reference",
            "resource_type",
            "resource_id",
        )
    } == {
        "type": "collection",
        "amount": 23_334,
        "fee": 583,
        "net": 22_751,
        "reference": "inst_b_a1",
        "resource_type": "installment",
        "resource_id": "inst_b",
    }
    assert newest["description"] == "Installment collected"


def test_payouts_show_as_money_out_and_returned_payouts_as_money_in(
    api, payee, committed
):
    net = credit_wallet(payee.merchant, 200_000)
    with committed():
        call_command("run_payouts", stdout=StringIO())
    payout = Payout.objects.get(status="paid")
    payout_outcome_apply(
        payout_id=payout.pk,
        result=TransferResult(
            reference=payout.public_id, status="reversed", amount=payout.amount
        ),
    )

    data = get_wallet(api, payee).json()["data"]

    rows = [
        (row["type"], row["amount"], row["fee"], row["net"], row["reference"])
        for row in data["transactions"]
    ]
    assert rows == [
        ("payout_returned", net, 0, net, payout.public_id),
        ("payout", -net, 0, -net, payout.public_id),
        ("collection", 200_000, 5_000, net, rows[2][4]),
    ]
    # The settlement moves nothing in the wallet: it is not a wallet transaction.
    assert LedgerTransaction.objects.filter(kind="payout_settled").count() == 1
    assert sum(row[3] for row in rows) == data["available_balance"] == net
    assert data["total_paid_out"] == 0


def test_balances_follow_a_payout_through_transit_to_paid(
    api, payee, django_capture_on_commit_callbacks
):
    net = credit_wallet(payee.merchant, 200_000)
    with django_capture_on_commit_callbacks() as settlement:
        call_command("run_payouts", stdout=StringIO())

    in_transit = get_wallet(api, payee).json()["data"]
    assert (
        in_transit["available_balance"],
        in_transit["pending_payout"],
        in_transit["total_paid_out"],
    ) == (0, net, 0)

    with django_capture_on_commit_callbacks(execute=True):
        for callback in settlement:
            callback()
    paid = get_wallet(api, payee).json()["data"]
    assert (
        paid["available_balance"],
        paid["pending_payout"],
        paid["total_paid_out"],
    ) == (0, 0, net)


def test_a_failed_payout_shows_the_money_back_in_the_wallet(api, payee, committed):
    set_payout_account(payee.merchant, account_number=PAYOUT_ACCOUNT_FAILS)
    net = credit_wallet(payee.merchant, 200_000)
    with committed():
        call_command("run_payouts", stdout=StringIO())

    data = get_wallet(api, payee).json()["data"]

    assert [row["type"] for row in data["transactions"]] == [
        "payout_returned",
        "payout",
        "collection",
    ]
    assert (data["available_balance"], data["pending_payout"]) == (net, 0)


def test_transactions_are_paginated_newest_first_with_the_total(api, payee):
    for number in range(5):
        credit_wallet(payee.merchant, 10_000 + number, reference=f"inst_{number}_a1")

    first = get_wallet(api, payee, limit=2).json()
    rest = get_wallet(api, payee, limit=2, offset=2).json()
    last = get_wallet(api, payee, limit=2, offset=4).json()

    assert first["total"] == rest["total"] == last["total"] == 5
    references = [
        row["reference"]
        for page in (first, rest, last)
        for row in page["data"]["transactions"]
    ]
    assert references == [f"inst_{number}_a1" for number in (4, 3, 2, 1, 0)]
    # Balances cover the whole wallet, not the page.
    assert first["data"]["available_balance"] == sum(
        10_000 + n - (10_000 + n) * 25 // 1000 for n in range(5)
    )


@pytest.mark.parametrize("params", [{"limit": 0}, {"limit": 101}, {"offset": "x"}])
def test_bad_pagination_is_400(api, payee, params):
    assert get_wallet(api, payee, **params).status_code == 400


def test_a_new_merchants_wallet_is_empty(api, merchant_with_key):
    body = get_wallet(api, merchant_with_key).json()

    assert body["total"] == 0
    assert body["data"]["transactions"] == []
    assert body["data"]["available_balance"] == 0


def test_the_merchant_jwt_opens_the_wallet_too(api, payee):
    credit_wallet(payee.merchant, 50_000)

    response = api.get(
        wallet_path(payee.merchant), **bearer(merchant_jwt(payee.merchant))
    )

    assert response.status_code == 200
    assert response.json()["data"]["available_balance"] == 48_750


def test_another_merchants_wallet_is_403_and_an_unknown_one_404(
    api, payee, other_merchant_with_key
):
    credit_wallet(payee.merchant, 50_000)

    by_key = api.get(wallet_path(payee.merchant), **other_merchant_with_key.headers)
    by_jwt = api.get(
        wallet_path(payee.merchant),
        **bearer(merchant_jwt(other_merchant_with_key.merchant)),
    )
    unknown = api.get("/api/v1/merchant/mer_unknown0000/wallet", **payee.headers)

    assert by_key.status_code == by_jwt.status_code == 403
    assert by_key.json()["error"]["code"] == "merchant_mismatch"
    assert "available_balance" not in by_key.content.decode()
    assert unknown.status_code == 404
    assert unknown.json()["error"]["code"] == "merchant_not_found"


def test_no_credential_is_401_and_a_customer_jwt_403(api, payee, customer):
    assert api.get(wallet_path(payee.merchant)).status_code == 401
    as_customer = api.get(wallet_path(payee.merchant), **bearer(customer_jwt(customer)))
    assert as_customer.status_code == 403


def test_an_api_key_of_a_merchant_without_api_access_is_403(api, payee):
    payee.merchant.api_access_enabled = False
    payee.merchant.save()

    response = get_wallet(api, payee)

    assert response.status_code == 403
    assert response.json()["error"]["code"] == "api_access_disabled"


# Payout account ------------------------------------------------------------------


def payout_account_path(merchant) -> str:
    return f"/api/v1/merchant/{merchant.public_id}/payout-account"


def put_account(api, merchant, body, *, token=None):
    return api.put(
        payout_account_path(merchant),
        body,
        format="json",
        **bearer(token or merchant_jwt(merchant)),
    )


def test_setting_the_payout_account_resolves_the_account_name(
    api, merchant_active, fresh_cache
):
    response = put_account(
        api, merchant_active, {"bank_code": "058", "account_number": "0123456789"}
    )

    assert response.status_code == 200
    assert response.json() == {
        "ok": True,
        "data": {
            "payout_bank_code": "058",
            "payout_account_number": "0123456789",
            "livemode": True,
            "payout_account_name": "SANDBOX ACCOUNT 6789",
        },
    }
    merchant_active.refresh_from_db()
    assert merchant_active.payout_account_name == "SANDBOX ACCOUNT 6789"
    settings = api.get(
        f"/api/v1/merchant/{merchant_active.public_id}/settings",
        **bearer(merchant_jwt(merchant_active)),
    ).json()["data"]
    assert settings["payout_account_number"] == "0123456789"


@pytest.mark.parametrize(
    "body, field",
    [
        ({"bank_code": "999", "account_number": "0123456789"}, "bank_code"),
        ({"bank_code": "058", "account_number": "012345678"}, "account_number"),
        ({"bank_code": "058", "account_number": "01234567890"}, "account_number"),
        ({"bank_code": "058", "account_number": "01234567a9"}, "account_number"),
        ({"bank_code": "058", "account_number": 123456789}, "account_number"),
        ({"bank_code": "058"}, "account_number"),
        (
            {"bank_code": "058", "account_number": "0123456789", "name": "x"},
            "name",
        ),
    ],
)
def test_a_bad_payout_account_is_400(api, merchant_active, fresh_cache, body, field):
    response = put_account(api, merchant_active, body)

    assert response.status_code == 400
    assert field in response.json()["errors"]
    merchant_active.refresh_from_db()
    assert merchant_active.payout_account_number == ""


def test_an_account_the_bank_cannot_resolve_is_422(
    api, merchant_active, fresh_cache, monkeypatch
):
    def unresolved(**kwargs):
        raise AccountNotResolved("The bank could not resolve this account: no")

    monkeypatch.setattr(get_processor(), "resolve_account", unresolved)
    response = put_account(
        api, merchant_active, {"bank_code": "058", "account_number": "0123456789"}
    )

    assert response.status_code == 422
    assert response.json()["error"]["code"] == "account_not_resolved"


def test_only_the_merchants_own_jwt_sets_the_payout_account(
    api, merchant_with_key, other_merchant_with_key, fresh_cache
):
    body = {"bank_code": "058", "account_number": "0123456789"}
    merchant = merchant_with_key.merchant

    with_key = api.put(
        payout_account_path(merchant), body, format="json", **merchant_with_key.headers
    )
    other = put_account(
        api, merchant, body, token=merchant_jwt(other_merchant_with_key.merchant)
    )
    nobody = api.put(payout_account_path(merchant), body, format="json")

    assert with_key.status_code == 403
    assert other.status_code == 403
    assert nobody.status_code == 401
    merchant.refresh_from_db()
    assert merchant.payout_account_number == ""
