"""CSV exports of the wallet, payouts and settlement reports (issue 18, DESIGN
section 16): the CSV holds the same rows and sums as the API's JSON, only the
merchant's own, and every line a payout paid out, adding up to it exactly."""

import csv
import io

import pytest
from django.test import Client

from payments.payouts.services.payouts import payout_create, payout_fail

from ..conftest import bearer, make_merchant_with_key
from ..dashboards import sign_in
from .commands import check_ledger
from .conftest import credit_wallet, set_payout_account

pytestmark = pytest.mark.django_db


def rows_of(response) -> list[dict]:
    assert response.status_code == 200, response.content[:500]
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response.streaming
    text = b"".join(response.streaming_content).decode()
    return list(csv.DictReader(io.StringIO(text)))


def json_pages(api, path: str, key: str, headers: dict) -> tuple[list[dict], int]:
    """Every item of a paginated list, page by page (`key`: where the items are)."""
    items, offset = [], 0
    while True:
        body = api.get(f"{path}?limit=2&offset={offset}", **headers).json()
        page = body["data"][key] if key else body["data"]
        items += page
        offset += 2
        if offset >= body["total"]:
            return items, body["total"]


@pytest.fixture
def shop(fresh_cache):
    """A merchant with a payout account, a paid-out payout and later lines."""
    shop = make_merchant_with_key()
    set_payout_account(shop.merchant)
    shop.merchant.refresh_from_db()
    credit_wallet(shop.merchant, 120_000, reference="inst_a_a1")
    credit_wallet(shop.merchant, 60_000, reference="inst_b_a1")
    shop.payout = payout_create(merchant=shop.merchant)
    credit_wallet(shop.merchant, 33_333, reference="inst_c_a1")
    return shop


@pytest.fixture
def stranger(fresh_cache):
    """Another merchant with money and a payout of its own."""
    other = make_merchant_with_key()
    set_payout_account(other.merchant)
    other.merchant.refresh_from_db()
    credit_wallet(other.merchant, 500_000, reference="inst_z_a1")
    other.payout = payout_create(merchant=other.merchant)
    return other


def test_the_wallet_csv_has_the_rows_and_sums_of_the_json(api, shop, stranger):
    headers = bearer(shop.api_key)
    path = f"/api/v1/merchant/{shop.merchant.public_id}/wallet"

    items, total = json_pages(api, path, "transactions", headers)
    rows = rows_of(api.get(f"{path}?format=csv", **headers))

    assert len(rows) == total == 4
    assert [row["id"] for row in rows] == [item["id"] for item in items]
    for row, item in zip(rows, items, strict=True):
        for name in ("type", "reference", "resource_id", "created_at"):
            assert row[name] == item[name]
        for name in ("amount", "fee", "net"):
            assert int(row[name]) == item[name]
    assert sum(int(row["net"]) for row in rows) == sum(item["net"] for item in items)
    wallet = api.get(path, **headers).json()["data"]
    assert sum(int(row["net"]) for row in rows) == wallet["available_balance"]
    assert {row["reference"] for row in rows} >= {"inst_a_a1", "inst_c_a1"}
    assert "inst_z_a1" not in {row["reference"] for row in rows}


def test_accept_text_csv_answers_csv_and_ignores_the_page(api, shop):
    path = f"/api/v1/merchant/{shop.merchant.public_id}/wallet?limit=1"

    rows = rows_of(api.get(path, HTTP_ACCEPT="text/csv", **bearer(shop.api_key)))

    assert len(rows) == 4


def test_money_comes_in_kobo_and_in_naira_and_the_file_is_named(api, shop):
    response = api.get(
        f"/api/v1/merchant/{shop.merchant.public_id}/wallet?format=csv",
        **bearer(shop.api_key),
    )
    disposition = response["Content-Disposition"]
    rows = rows_of(response)

    assert disposition.startswith(
        f'attachment; filename="{shop.merchant.public_id}_wallet_transactions_'
    )
    payout_row = next(row for row in rows if row["type"] == "payout")
    assert payout_row["amount"] == "-175500"
    assert payout_row["amount_naira"] == "-1755.00"
    assert rows[0]["created_at"].endswith("Z")


def test_a_refused_csv_request_keeps_the_json_error(api, shop, stranger):
    other_wallet = f"/api/v1/merchant/{stranger.merchant.public_id}/wallet?format=csv"

    mismatch = api.get(other_wallet, **bearer(shop.api_key))
    anonymous = api.get(other_wallet)

    assert mismatch.status_code == 403
    assert mismatch["Content-Type"] == "application/json"
    assert mismatch.json()["error"]["code"] == "merchant_mismatch"
    assert anonymous.status_code == 401
    assert anonymous["Content-Type"] == "application/json"


def test_the_payouts_csv_has_the_rows_of_the_json(api, shop, stranger):
    headers = bearer(shop.api_key)
    path = f"/api/v1/merchant/{shop.merchant.public_id}/payouts"

    listed = api.get(path, **headers).json()
    rows = rows_of(api.get(f"{path}?format=csv", **headers))

    assert listed["total"] == 1 == len(rows)
    assert listed["data"][0]["id"] == rows[0]["id"] == shop.payout.public_id
    assert int(rows[0]["amount"]) == listed["data"][0]["amount"] == 175_500
    assert int(rows[0]["lines"]) == listed["data"][0]["lines"] == 2


def test_a_settlement_report_lists_every_line_paid_out_and_adds_up_exactly(
    api, shop, stranger
):
    headers = bearer(shop.api_key)
    path = (
        f"/api/v1/merchant/{shop.merchant.public_id}/payouts/"
        f"{shop.payout.public_id}/settlement"
    )

    report, total = json_pages(api, path, "lines", headers)
    rows = rows_of(api.get(f"{path}?format=csv", **headers))

    assert total == len(rows) == 2
    assert [row["processor_reference"] for row in rows] == ["inst_a_a1", "inst_b_a1"]
    assert [row["transaction_id"] for row in rows] == [
        line["transaction_id"] for line in report
    ]
    assert sum(int(row["net"]) for row in rows) == shop.payout.amount
    assert sum(line["net"] for line in report) == shop.payout.amount
    for row in rows:
        assert int(row["gross"]) - int(row["fee"]) == int(row["net"])
        assert row["payout_id"] == shop.payout.public_id
    # The line collected after the payout waits for the next one.
    assert "inst_c_a1" not in {row["processor_reference"] for row in rows}
    assert "clean" in check_ledger()


def test_another_merchants_payout_report_is_not_found(api, shop, stranger):
    mine = f"/api/v1/merchant/{shop.merchant.public_id}/payouts"

    for suffix in ("", "?format=csv"):
        answer = api.get(
            f"{mine}/{stranger.payout.public_id}/settlement{suffix}",
            **bearer(shop.api_key),
        )
        assert answer.status_code == 404
        assert answer.json()["error"]["code"] == "not_found"


def test_a_failed_payouts_lines_are_paid_out_by_the_next_payout(shop):
    merchant = shop.merchant
    payout_fail(payout_id=shop.payout.pk, reason="Account closed")
    credit_wallet(merchant, 10_000, reference="inst_d_a1")

    second = payout_create(merchant=merchant)

    references = [
        item.line.transaction.processor_reference
        for item in second.items.select_related("line__transaction")
    ]
    assert sorted(references) == ["inst_a_a1", "inst_b_a1", "inst_c_a1", "inst_d_a1"]
    assert second.amount == 175_500 + 32_500 + 9_750
    assert "clean" in check_ledger()


def test_the_wallet_pages_downloads_are_the_merchants_own(shop, stranger):
    browser = sign_in(Client(), shop.merchant)

    page = browser.get("/dashboard/wallet/").content.decode()
    transactions = rows_of(browser.get("/dashboard/wallet/transactions.csv"))
    payouts = rows_of(browser.get("/dashboard/wallet/payouts.csv"))
    report = rows_of(
        browser.get(f"/dashboard/wallet/payouts/{shop.payout.public_id}/settlement.csv")
    )
    refunds = rows_of(browser.get("/dashboard/wallet/refunds.csv"))
    foreign = browser.get(
        f"/dashboard/wallet/payouts/{stranger.payout.public_id}/settlement.csv"
    )

    for testid in ("transactions-csv", "payouts-csv", "settlement-csv"):
        assert f'data-testid="{testid}"' in page
    assert len(transactions) == 4
    assert "inst_z_a1" not in {row["reference"] for row in transactions}
    assert [row["id"] for row in payouts] == [shop.payout.public_id]
    assert sum(int(row["net"]) for row in report) == shop.payout.amount
    assert refunds == []
    assert foreign.status_code == 404


def test_signed_out_downloads_go_to_the_sign_in_page(shop):
    response = Client().get("/dashboard/wallet/transactions.csv")

    assert response.status_code == 302
    assert response["Location"].startswith("/dashboard/login/")


def test_a_format_that_is_neither_json_nor_csv_is_a_400(api, shop):
    path = f"/api/v1/merchant/{shop.merchant.public_id}/wallet"

    response = api.get(f"{path}?format=xml", **bearer(shop.api_key))
    as_json = api.get(f"{path}?format=json", **bearer(shop.api_key))

    assert response.status_code == 400
    assert "format must be json or csv." in response.content.decode()
    assert as_json.status_code == 200
    assert as_json.json()["total"] == 4


def test_a_csv_request_with_a_malformed_page_is_a_400_like_json(api, shop):
    path = f"/api/v1/merchant/{shop.merchant.public_id}/wallet?format=csv"

    response = api.get(f"{path}&limit=500", **bearer(shop.api_key))

    assert response.status_code == 400
    assert "limit must be between 1 and 100." in response.content.decode()
