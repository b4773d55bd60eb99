"""Test mode's no-mix test (DESIGN section 21, docs/test-mode.md): one account
with a live key and a test key makes the same objects on both sides through the
API (on the sandbox deployment, the tests' default): checkout sessions completed
(their deposits collected), a plan with an installment collected, a refund, a
payment link, a pay link, a payout (by the payout run, which runs both sides),
events and their deliveries, a dispute. Then every merchant-scoped list and
total the API has is read with each key, each list's CSV export too, and each
side's answers must name only that side's ids and add up only that side's
amounts; the wallet and each side's settlement report alike; and `check_ledger`
is clean on each side on its own.

The routes read are generated from the URL resolver: every GET route whose
path names only the merchant (or nothing) is read as it is, those naming one of
the side's objects get it from PARAMS, and a GET route that is no
merchant-scoped list is left out only by name in NOT_LISTS, with the reason. A
new route is read (or the test fails until it is given its parameter or its
reason), so a new list cannot escape the check.
"""

import csv
import io
import re
from dataclasses import dataclass, field
from io import StringIO

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

from config.api.csv import CsvListApi
from merchants import services as merchant_services
from merchants.models import Merchant
from payments.ledger import selectors as ledger_selectors
from payments.ledger.models import LedgerLine, LedgerTransaction, side_accounts
from payments.models import Payout
from webhooks.models import DeliveryAttempt

from ..conftest import make_merchant_with_key, merchant_jwt
from ..factories import CustomerFactory
from ..payments.conftest import add_card, sign_in
from .conftest import disputed
from .routes import api_views

pytestmark = pytest.mark.django_db

ACCOUNT = "{merchant_id}"
# GET routes that are no merchant-scoped list or total, each with its reason.
NOT_LISTS = {
    "/api/v1/schema": "the API's description: no merchant's data",
    "/api/v1/checkout/sessions/{token}": "one session by its secret token (public)",
    "/api/v1/checkout/sessions/{token}/key-facts": "one session's key facts",
    "/api/v1/customers/me": "the signed-in customer (a person, of no side)",
    "/api/v1/payment-methods/banks": "the processor's list of banks, of no merchant",
    "/api/v1/payment-methods/customers/{customer_id}": (
        "a customer's own methods (customer JWT): customers are people, not a "
        "merchant's side"
    ),
    "/api/v1/merchant/{merchant_id}/settings": (
        "one account's settings (merchant JWT only, on the live side)"
    ),
    "/api/v1/disputes/{dispute_id}": "one dispute, by its id",
    "/api/v1/events/{event_id}": "one event, by its id",
    "/api/v1/payment-plans/{plan_id}": "one plan, by its id",
    "/api/v1/payment-plans/{plan_id}/agreement": "one plan's agreement",
    "/api/v1/payment-plans/{plan_id}/agreement.pdf": "one plan's agreement (PDF)",
    "/api/v1/payment-plans/{plan_id}/payments/{payment_id}": "one early payment",
}
# The merchant JWT has no test side (the dashboard's switch is the session's):
# the routes it alone reads are read on the live side only, and must not show
# the test side's ids.
JWT_ONLY = {"/api/v1/webhooks/failed-attempts"}
# Ids are `<prefix>_<letters and digits>`; a test side's own merchant id ends
# `_test` (never shown: `merchantId` is the account's on both sides).
ID = re.compile(r"\b[a-z]{2,8}_[A-Za-z0-9]{8,}(?:_[A-Za-z0-9]+)*\b")


@dataclass
class Side:
    livemode: bool
    merchant: Merchant
    key: str
    amount: int
    plans: list = field(default_factory=list)
    ids: set = field(default_factory=set)

    @property
    def headers(self) -> dict:
        return {"HTTP_AUTHORIZATION": f"Bearer {self.key}"}

    def get(self, path: str, **query):
        return APIClient().get(path, query, **self.headers)

    def post(self, path: str, body: dict | None = None):
        response = APIClient().post(path, body or {}, format="json", **self.headers)
        assert response.status_code in (200, 201, 202), (path, response.content)
        return response.json().get("data", response.json())


def _make_side(side: Side, account: Merchant, shopper, card_id: str) -> None:
    """The same objects on one side, through the API with the side's key."""
    for n in range(2):
        session = side.post(
            "/api/v1/checkout/sessions",
            {
                "merchant_id": account.public_id,
                "amount": side.amount,
                "currency": "NGN",
                "title": f"Separation order {n}",
                "order_reference": f"separation-{side.livemode}-{n}",
            },
        )
        token = session["session_token"]
        response = shopper.client.post(
            f"/api/v1/checkout/sessions/{token}/complete",
            {
                "schedule_type": "monthly",
                "installment_count": 3,
                "payment_method_id": card_id,
                "terms_accepted": True,
            },
            format="json",
        )
        assert response.status_code in (200, 201), response.content
        side.plans.append(response.json()["data"]["id"])
    plan = side.plans[0]
    side.post(f"/api/v1/sandbox/payment-plans/{plan}/collect-next")
    side.post(
        f"/api/v1/payment-plans/{plan}/refunds",
        {"amount": 1_000, "reason": "Separation return"},
    )
    side.post(
        "/api/v1/payment-links",
        {
            "merchant_id": account.public_id,
            "title": "Separation chair",
            "amount": side.amount,
            "currency": "NGN",
        },
    )
    side.post(f"/api/v1/payment-plans/{plan}/pay-links")


def _payout_account(merchant: Merchant, hook: str) -> None:
    """Each side's payout account and webhook URL, its own (the payout account
    is set with a merchant JWT on the dashboard's side, out of this test's way)."""
    merchant.payout_bank_code = "058"
    merchant.payout_account_number = "0123456780"
    merchant.payout_account_name = "SEPARATION SHOP"
    merchant.webhook_url = hook
    merchant.webhook_secret = "s" * 24
    merchant.save()


@pytest.fixture
def sides(settings, offline_webhooks, committed):
    settings.RATE_LIMITS = {"sandbox": 1_000_000, "production": 1_000_000}
    account = make_merchant_with_key(rate_plan="production")
    _, test_key = merchant_services.api_key_rotate(
        merchant=account.merchant, mode="test"
    )
    test_row = merchant_services.test_side_for(account.merchant)
    live = Side(True, account.merchant, account.api_key, amount=500_000)
    test = Side(False, test_row, test_key, amount=300_000)
    _payout_account(live.merchant, "https://hooks.shop.example/live")
    _payout_account(test.merchant, "https://hooks.shop.example/test")
    shopper = sign_in(CustomerFactory())
    with committed():
        for side in (live, test):
            # Each side's checkouts take a card of their side.
            card = add_card(shopper, livemode=side.livemode)["id"]
            _make_side(side, account.merchant, shopper, card)
    for side in (live, test):
        disputed(side.merchant.payment_plans.get(public_id=side.plans[1]))
    with committed():
        call_command("run_payouts", stdout=StringIO())
    return live, test


# Path parameters other than the account's: each side's own object (and the
# other side's, which the side's key must not reach).
PARAMS = {
    "plan_id": lambda side: side.plans[0],
    "payout_id": lambda side: side.merchant.payouts.get().public_id,
}


def _list_routes() -> list[tuple[str, type]]:
    """Every GET route of the API that is a merchant-scoped list or total (the
    URL resolver's, less NOT_LISTS): a route naming a parameter PARAMS does not
    give fails here until it is given one or a reason in NOT_LISTS."""
    found = []
    for path, view in sorted(api_views().items()):
        if not hasattr(view, "get") or path in NOT_LISTS:
            continue
        names = set(re.findall(r"{(\w+)}", path)) - {"merchant_id"}
        missing = names - set(PARAMS)
        assert not missing, (
            f"GET {path} names {sorted(missing)}: give PARAMS a value of each side "
            "for it, or NOT_LISTS the reason it is no merchant-scoped list"
        )
        found.append((path, view))
    return found


def _ids(value) -> set[str]:
    """Every id an answer (JSON or CSV text) shows."""
    if isinstance(value, dict):
        return set().union(*(_ids(v) for v in value.values()), set())
    if isinstance(value, list):
        return set().union(*(_ids(v) for v in value), set())
    if isinstance(value, str):
        return set(ID.findall(value))
    return set()


def _items(body: dict) -> list:
    """The listed items of an answer: its `data` list, or the list a data
    object carries (the wallet's transactions, a report's lines)."""
    data = body["data"]
    if isinstance(data, list):
        return data
    lists = [v for v in data.values() if isinstance(v, list)]
    return lists[0] if lists else []


@dataclass
class Read:
    ids: dict = field(default_factory=dict)  # {route: the ids it showed}
    totals: dict = field(default_factory=dict)

    def every_id(self) -> set[str]:
        return set().union(*self.ids.values())


def _read_everything(side: Side, account_id: str) -> Read:
    read = Read()
    for path, view in _list_routes():
        if path in JWT_ONLY:
            continue
        url = path.format(
            merchant_id=account_id, **{n: f(side) for n, f in PARAMS.items()}
        )
        response = side.get(url, limit=100)
        assert response.status_code == 200, (path, response.content)
        body = response.json()
        read.ids[path] = _ids(body)
        items = _items(body)
        if "total" in body:
            # Everything fits one page: a total counting rows of the other
            # side would be more than the page shows.
            assert body["total"] == len(items), path
        read.totals[path] = len(items)
        if issubclass(view, CsvListApi):
            exported = side.get(url, format="csv")
            assert exported.status_code == 200, (path, exported)
            text = b"".join(exported.streaming_content).decode()
            rows = list(csv.DictReader(io.StringIO(text)))
            read.ids[f"{path}?format=csv"] = _ids(text)
            read.totals[f"{path}?format=csv"] = len(rows)
    return read


def _side_ids(side: Side) -> set[str]:
    """The ids of the side's own objects, from the database."""
    merchant = side.merchant
    ids = set()
    for rows in (
        merchant.payment_plans.all(),
        LedgerTransaction.objects.filter(merchant=merchant),
        Payout.objects.filter(merchant=merchant),
        merchant.payment_links.all(),
    ):
        ids |= set(rows.values_list("public_id", flat=True))
    for plan in merchant.payment_plans.all():
        for rows in (plan.installments, plan.disputes, plan.refunds):
            ids |= set(rows.values_list("public_id", flat=True))
    events = merchant.webhook_events.all()
    ids |= set(events.values_list("public_id", flat=True))
    # Each event's delivery attempts (an event's delivery is the event's row).
    ids |= set(
        DeliveryAttempt.objects.filter(event__in=events).values_list(
            "public_id", flat=True
        )
    )
    return ids


def _ledger_clean(side: str) -> str:
    out = StringIO()
    call_command("check_ledger", "--side", side, stdout=out)
    return out.getvalue()


def test_each_side_reads_only_its_own_ids_totals_and_amounts(sides):
    live, test = sides
    account_id = live.merchant.public_id
    reads = {side.livemode: _read_everything(side, account_id) for side in sides}
    for side, other in ((live, test), (test, live)):
        own, theirs = _side_ids(side), _side_ids(other)
        assert own and theirs and not own & theirs
        for path, shown in reads[side.livemode].ids.items():
            assert not shown & theirs, f"{path} (livemode={side.livemode}) shows"
        seen = reads[side.livemode].every_id()
        assert own & seen, "the side's lists show its own objects"
        # The test side's own row id is never shown (`merchantId` is the
        # account's on both sides).
        leaks = {
            path
            for path, shown in reads[side.livemode].ids.items()
            if {i for i in shown if i.endswith("_test")}
        }
        assert leaks == set()
    # The same objects on each side: every list and export counts as many.
    assert reads[True].totals == reads[False].totals
    assert reads[True].totals["/api/v1/payment-plans"] == 2


def test_each_sides_wallet_and_settlement_add_up_its_own_amounts(sides):
    live, test = sides
    account_id = live.merchant.public_id
    for side in sides:
        wallet = side.get(f"/api/v1/merchant/{account_id}/wallet").json()["data"]
        balances = ledger_selectors.wallet_balances(side.merchant)
        payout = side.merchant.payouts.get()
        assert wallet["merchant_id"] == account_id
        assert wallet["available_balance"] == balances.available_balance
        assert wallet["total_paid_out"] == payout.amount
        collected = sum(
            t["net"] for t in wallet["transactions"] if t["type"] == "collection"
        )
        # Two deposits and an installment of the side's own amount, net of fees.
        expected = LedgerTransaction.objects.filter(
            merchant=side.merchant, kind="collection"
        )
        assert collected == sum(expected.values_list("net", flat=True))
        report = side.get(
            f"/api/v1/merchant/{account_id}/payouts/{payout.public_id}/settlement"
        ).json()
        assert sum(line["net"] for line in _items(report)) == payout.amount
    assert live.merchant.payouts.get().amount != test.merchant.payouts.get().amount


def test_a_key_never_reaches_the_other_sides_objects(sides):
    live, test = sides
    account_id = live.merchant.public_id
    for side, other in ((live, test), (test, live)):
        for path, _ in _list_routes():
            names = set(re.findall(r"{(\w+)}", path)) - {"merchant_id"}
            if not names or path in JWT_ONLY:
                continue
            url = path.format(
                merchant_id=account_id, **{n: PARAMS[n](other) for n in names}
            )
            assert side.get(url).status_code == 404, (side.livemode, path)


def test_the_live_dashboards_lists_never_show_test_ids(sides):
    live, test = sides
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {merchant_jwt(live.merchant)}")
    for path in JWT_ONLY:
        response = client.get(path)
        assert response.status_code == 200, response.content
        assert not _ids(response.json()) & _side_ids(test)


def test_the_platforms_accounts_and_each_sides_books_stay_apart(sides):
    for livemode, other in ((True, False), (False, True)):
        accounts = set(
            LedgerLine.objects.filter(transaction__livemode=livemode).values_list(
                "account", flat=True
            )
        )
        assert not accounts & set(side_accounts(other))
        assert accounts & set(side_accounts(livemode))
    assert "live: clean" in _ledger_clean("live")
    assert "test: clean" in _ledger_clean("test")


def test_the_payout_run_paid_each_side_from_its_own_wallet(sides):
    """The scheduled payout run lists the test side's row too (active, with a
    payout account of its own) and pays each wallet on its side."""
    for side in sides:
        payout = side.merchant.payouts.get()
        assert payout.status == "paid"
        assert ledger_selectors.wallet_available_balance(side.merchant) == 0
        posted = LedgerTransaction.objects.get(
            kind="payout", reference=payout.public_id
        )
        assert posted.livemode is side.livemode


def test_each_sides_events_went_to_its_own_webhook(sides):
    """The delivery pass (the outbox's scheduled job) delivers both sides'
    events, each to its own side's URL only."""
    for side in sides:
        urls = set(
            DeliveryAttempt.objects.filter(merchant=side.merchant).values_list(
                "url", flat=True
            )
        )
        assert urls == {side.merchant.webhook_url}
