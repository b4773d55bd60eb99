"""The dashboard's wallet and payout account pages (issue 8, DESIGN §8, §12)."""

import re
from datetime import UTC, datetime, timedelta
from io import StringIO

import pytest
import time_machine
from django.core.management import call_command
from django.utils import timezone

from payments.dashboard import selectors as dashboard_selectors
from payments.dashboard.chart import collections_chart
from payments.gateway.errors import AccountNotResolved, ProcessorTimeout
from payments.models import Payout

from ..factories import MerchantFactory
from .conftest import GTBANK, PAYOUT_ACCOUNT_OK, credit_wallet

pytestmark = pytest.mark.django_db

WALLET = "/dashboard/wallet/"
ACCOUNT = "/dashboard/wallet/payout-account/"


def text_of(page: str, name: str) -> str:
    match = re.search(rf'data-testid="{name}"[^>]*>(.*?)<', page, re.S)
    return match.group(1).strip()


def bars(page: str) -> list[tuple[float, str]]:
    return [
        (float(height), title)
        for height, title in re.findall(
            r'<rect [^>]*height="([\d.]+)" class="chart-bar"><title>(.*?)</title>', page
        )
    ]


def test_the_wallet_shows_balances_transactions_and_payouts_from_the_ledger(
    dashboard_for, payee, committed
):
    merchant = payee.merchant
    paid_out = credit_wallet(merchant, 200_000)  # net 195,000
    with committed():
        call_command("run_payouts", stdout=StringIO())
    credit_wallet(merchant, 150_000, reference="inst_x_a1")  # net 146,250
    credit_wallet(MerchantFactory(), 999_900)  # someone else's

    page = dashboard_for(merchant).get(WALLET).content.decode()

    assert text_of(page, "available-balance") == "₦1,462.50"
    assert text_of(page, "pending-payout") == "₦0.00"
    assert text_of(page, "total-paid-out") == f"₦{paid_out // 100:,}.00"
    transactions = page[page.index('data-testid="transactions"') :]
    transactions = transactions[: transactions.index("</table>")]
    assert transactions.count("<tr>") == 1 + 3  # the head and three rows
    assert "inst_x_a1" in transactions
    assert "₦1,500.00" in transactions and "₦37.50" in transactions
    assert "-₦1,950.00" in transactions  # the payout, out of the wallet
    # The payout's line names its bank, not its code (issue 25 item 11).
    assert "Payout to Guaranty Trust Bank ••••6780" in transactions
    assert "Payout to 058" not in page
    payout = Payout.objects.get(merchant=merchant)
    payouts = page[page.index('data-testid="payouts"') :]
    assert payout.public_id in payouts
    assert "badge-paid" in payouts
    assert "Guaranty Trust Bank ••••6780" in payouts
    assert "₦9,999.00" not in page


def test_a_new_merchants_wallet_says_what_will_appear(dashboard_for, merchant_active):
    page = dashboard_for(merchant_active).get(WALLET).content.decode()

    assert text_of(page, "available-balance") == "₦0.00"
    assert 'data-testid="transactions-empty"' in page
    assert 'data-testid="payouts-empty"' in page
    assert 'data-testid="payout-account-missing"' in page
    assert len(bars(page)) == 90


def test_the_wallet_pages_its_transactions_and_payouts_separately(
    dashboard_for, merchant_active
):
    for number in range(25):
        credit_wallet(merchant_active, 10_000 + number, reference=f"inst_{number}_a1")
    client = dashboard_for(merchant_active)

    first = client.get(WALLET).content.decode()
    second = client.get(WALLET, {"page": "2"}).content.decode()

    assert "inst_24_a1" in first and "inst_5_a1" in first
    assert "inst_4_a1" not in first
    assert "inst_4_a1" in second and "inst_0_a1" in second
    assert 'href="?page=2"' in first
    assert "Page 2 of 2" in second


@time_machine.travel(datetime(2026, 3, 31, 12, 0, tzinfo=UTC), tick=False)
def test_the_chart_has_one_bar_a_day_for_the_last_90_lagos_days(
    dashboard_for, merchant_active
):
    # 23:30 UTC on 30 March is 00:30 on 31 March in Lagos: today's bar.
    for moment, amount in [
        (datetime(2026, 3, 30, 23, 30, tzinfo=UTC), 100_000),
        (datetime(2026, 3, 31, 9, 0, tzinfo=UTC), 50_000),
        (datetime(2026, 3, 1, 9, 0, tzinfo=UTC), 25_000),
        (datetime(2025, 12, 31, 9, 0, tzinfo=UTC), 77_700),  # 90 days ago: out
    ]:
        with time_machine.travel(moment, tick=False):
            credit_wallet(merchant_active, amount)

    page = dashboard_for(merchant_active).get(WALLET).content.decode()

    shown = bars(page)
    assert len(shown) == 90
    assert shown[0][1] == "1 Jan 2026: nothing collected"
    assert shown[-1] == (
        100.0,
        "31 Mar 2026: ₦1,500.00 collected (2 payments), ₦1,462.50 to your wallet",
    )
    assert shown[-31] == (
        round(25_000 / 150_000 * 100, 2),
        "1 Mar 2026: ₦250.00 collected (1 payment), ₦243.75 to your wallet",
    )
    assert text_of(page, "chart-total") == "₦1,750.00"
    assert 'aria-label="Collections per day from 1 Jan 2026 to 31 Mar 2026' in page
    assert not any("₦777.00" in title for _, title in shown)


def test_a_tiny_day_stays_visible_beside_a_large_one(db):
    today = timezone.localdate()
    days = [
        dashboard_selectors.DayTotal(today - timedelta(days=1), 1, 1, 1),
        dashboard_selectors.DayTotal(today, 10_000_000, 9_750_000, 1),
    ]

    chart = collections_chart(days)

    assert [bar.height for bar in chart.bars] == [1, 100]


def test_the_payout_account_form_lists_the_processors_banks(
    dashboard_for, merchant_active
):
    page = dashboard_for(merchant_active).get(ACCOUNT).content.decode()

    assert '<option value="" selected>Choose your bank</option>' in page
    assert f'<option value="{GTBANK}">Guaranty Trust Bank</option>' in page


def test_saving_a_payout_account_shows_the_name_the_bank_resolved(
    dashboard_for, merchant_active
):
    client = dashboard_for(merchant_active)

    response = client.post(
        ACCOUNT, {"bank_code": GTBANK, "account_number": "0123 456 780"}
    )

    assert response.status_code == 303
    assert response["Location"] == WALLET
    merchant_active.refresh_from_db()
    assert merchant_active.payout_bank_code == GTBANK
    assert merchant_active.payout_account_number == PAYOUT_ACCOUNT_OK
    assert merchant_active.payout_account_name == "SANDBOX ACCOUNT 6780"
    page = client.get(WALLET).content.decode()
    assert "the bank says it belongs to SANDBOX ACCOUNT 6780" in page
    assert text_of(page, "payout-account-name") == "SANDBOX ACCOUNT 6780"
    assert "Guaranty Trust Bank" in page
    again = client.get(ACCOUNT).content.decode()
    assert f'<option value="{GTBANK}" selected>' in again


@pytest.mark.parametrize(
    ("data", "field", "message"),
    [
        ({"account_number": "0123456780"}, "bank_code", "This field is required."),
        (
            {"bank_code": "999999", "account_number": "0123456780"},
            "bank_code",
            "Select a valid choice.",
        ),
        ({"bank_code": GTBANK}, "account_number", "This field is required."),
        (
            {"bank_code": GTBANK, "account_number": "12345"},
            "account_number",
            "A NUBAN account number has exactly 10 digits.",
        ),
    ],
)
def test_a_bad_payout_account_is_refused_next_to_its_field(
    dashboard_for, merchant_active, data, field, message
):
    response = dashboard_for(merchant_active).post(ACCOUNT, data)

    page = response.content.decode()
    assert response.status_code == 400
    block = page[page.index(f'data-field="{field}"') :]
    assert message in block[: block.index("</div>")]
    merchant_active.refresh_from_db()
    assert merchant_active.payout_account_number == ""


def test_an_account_the_bank_cannot_resolve_is_explained(
    dashboard_for, merchant_active, monkeypatch
):
    from payments.gateway.processors import processor_of

    def refusing(**kwargs):
        raise AccountNotResolved("The bank could not resolve this account.")

    monkeypatch.setattr(processor_of(merchant_active), "resolve_account", refusing)

    response = dashboard_for(merchant_active).post(
        ACCOUNT, {"bank_code": GTBANK, "account_number": "0123456780"}
    )

    page = response.content.decode()
    assert response.status_code == 400
    block = page[page.index('data-field="account_number"') :]
    assert "The bank could not resolve this account." in block


def test_the_payout_account_page_says_when_the_bank_list_cannot_be_read(
    dashboard_for, payee, monkeypatch
):
    from payments.gateway import selectors

    def down(**kwargs):
        raise ProcessorTimeout()

    monkeypatch.setattr(selectors, "banks", down)
    client = dashboard_for(payee.merchant)

    form = client.get(ACCOUNT)
    wallet = client.get(WALLET)

    assert form.status_code == 503
    assert "We cannot read the list of banks just now" in form.content.decode()
    # The wallet still opens, naming the bank by its code.
    assert wallet.status_code == 200
    assert f"<dt>Bank</dt><dd>{GTBANK}</dd>" in wallet.content.decode()
