"""The wallet page's refunds (issue 16 item 6, DESIGN §14): each processor
refund asked for, paid or returned is a readable line, refunds in transit are
counted, and a balance below zero says plainly what is owed and when payouts
resume."""

import html
import re
from io import StringIO

import pytest
from django.core.management import call_command
from django.test import Client

from payments.ledger.fees import platform_fee
from payments.ledger.services import (
    RefundPosting,
    refund_post,
    refund_returned_post,
    refund_settled_post,
)

from ..dashboards import sign_in
from ..factories import CustomerFactory
from .commands import check_ledger
from .conftest import credit_wallet

pytestmark = pytest.mark.django_db

WALLET = "/dashboard/wallet/"
CHARGE = "inst_abcdefghijklmnopqrstuv_a1"


def part(merchant, amount: int, n: int = 1) -> RefundPosting:
    return RefundPosting(
        merchant=merchant,
        customer=CustomerFactory(),
        reference=f"rf_abcdefghijklmnopqrstuv_{n}",
        collection_reference=CHARGE,
        refund_id="rf_abcdefghijklmnopqrstuv",
        amount=amount,
        description="Refund rf_abcdefghijklmnopqrstuv, order ORD-7",
    )


def text(page: str) -> str:
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", page)))


def shown_in(page: str, name: str) -> str:
    match = re.search(rf'<(\w+)[^>]*data-testid="{name}"[^>]*>(.*?)</\1>', page, re.S)
    assert match, f"no {name} on the page"
    return text(match.group(2)).strip()


def naira(kobo: int) -> str:
    sign = "-" if kobo < 0 else ""
    return f"{sign}₦{abs(kobo) // 100:,}.{abs(kobo) % 100:02d}"


def refund_rows(page: str) -> list[str]:
    table = page[page.index('data-testid="refund-movements"') :]
    table = table[: table.index("</table>")]
    return [text(row) for row in re.findall(r"<tr data-kind=.*?</tr>", table, re.S)]


def test_a_refund_of_money_paid_out_shows_the_negative_balance_plainly(
    payee, committed
):
    merchant = payee.merchant
    net = credit_wallet(merchant, 150_000, reference=CHARGE)
    with committed():
        call_command("run_payouts", stdout=StringIO())
    refund_post(part=part(merchant, 150_000), remaining=150_000)
    dashboard = sign_in(Client(), merchant)

    page = dashboard.get(WALLET).content.decode()

    assert shown_in(page, "available-balance") == naira(-net)
    assert 'class="stat-value negative"' in page
    assert shown_in(page, "wallet-owed").startswith(
        f"You owe {naira(net)}: refunds took back more than your wallet held"
    )
    assert "The next collections cover it before any payout." in shown_in(
        page, "wallet-owed"
    )
    assert "no payout until collections bring it back to ₦1,000.00" in shown_in(
        page, "payout-rule"
    )
    assert shown_in(page, "refunds-in-transit") == "₦1,500.00"
    [requested] = refund_rows(page)
    assert "Refund to a customer" in requested
    assert "rf_abcdefghijklmnopqrstuv" in requested and CHARGE in requested
    assert f"{naira(-net)} our {naira(platform_fee(150_000))} fee given back" in (
        requested
    )
    transactions = page[page.index('data-testid="transactions"') :]
    assert "Refund to a customer" in transactions[: transactions.index("</table>")]
    check_ledger()


def test_refunds_paid_and_returned_read_as_such(payee):
    merchant = payee.merchant
    credit_wallet(merchant, 100_000, reference=CHARGE)
    paid, failed = part(merchant, 30_000, 1), part(merchant, 20_000, 2)
    refund_post(part=paid, remaining=100_000)
    refund_post(part=failed, remaining=70_000)
    refund_settled_post(part=paid)
    back = refund_returned_post(part=failed, remaining=50_000)

    page = sign_in(Client(), merchant).get(WALLET).content.decode()

    returned, settled, *_ = refund_rows(page)
    assert "Refund failed: money back" in returned
    assert "the money is back in your balance" in returned
    assert f"{naira(back.net)} our {naira(back.fee)} fee kept again" in returned
    assert "Refund paid to the customer" in settled
    assert "your balance does not change" in settled
    assert shown_in(page, "refunds-in-transit") == "₦0.00"
    assert 'data-testid="wallet-owed"' not in page
    assert "Paid out in the next daily payout, from ₦1,000.00." in shown_in(
        page, "payout-rule"
    )
    check_ledger()


def test_a_wallet_without_refunds_says_so_and_states_the_payout_rule(
    payee,
):
    credit_wallet(payee.merchant, 100_000)

    page = sign_in(Client(), payee.merchant).get(WALLET).content.decode()

    assert 'data-testid="refunds-empty"' in page
    assert 'data-testid="refunds-in-transit"' not in page
    assert "A refund of money already paid out can take the balance below zero" in (
        shown_in(page, "payout-rule-full")
    )


def test_the_refunds_are_paginated_apart_from_the_transactions(payee):
    merchant = payee.merchant
    credit_wallet(merchant, 100_000, reference=CHARGE)
    for n in range(1, 13):
        refund_post(part=part(merchant, 100, n), remaining=100_000 - 100 * (n - 1))
    dashboard = sign_in(Client(), merchant)

    first = dashboard.get(WALLET).content.decode()
    second = dashboard.get(WALLET, {"refunds_page": "2"}).content.decode()

    assert len(refund_rows(first)) == 10 and len(refund_rows(second)) == 2
    assert 'href="?refunds_page=2"' in first
    check_ledger()
