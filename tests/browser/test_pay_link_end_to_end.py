"""End to end over HTTP (issue 27, DESIGN section 17): a real web process
(gunicorn) and a real `qcluster` on the PostgreSQL test database, a real
receiver on 127.0.0.1, and Chromium.

An installment fails on an expired card (the sandbox clock runs the plan into
the next month, where the sandbox's card of this month is expired); the
`action_required` e-mail's pay link is opened in Chromium without signing in;
the customer pays that installment by bank transfer; the sandbox completes the
transfer (the customer's money lands). The receiver gets the payment's events
once each, signed, with `channel: "bank_transfer"`, and the wallet is right to
the kobo."""

import json
import re
from collections import Counter
from email import message_from_bytes, policy

import pytest
from playwright.sync_api import expect

from merchants import services as merchant_services
from payments.gateway.processors.sandbox.values import CARD_EXPIRES_THIS_MONTH
from webhooks.models import Delivery, Event

from .. import servers
from ..installments.conftest import check_ledger
from ..installments.live_api import (
    Api,
    bought_over_http,
    customer_with_card,
    signed,
)
from ..installments.refund_model import fee
from ..scale_out.clusters import tail, wait_for
from ..webhooks.conftest import make_subscriber
from .conftest import NAVIGATION_MS

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

DEPOSIT, FIRST = 75_000, 58_334  # of 250,000 in 3 monthly installments
PAY_PATH = re.compile(r"https?://[^/\s]+(/pay/[A-Za-z0-9_-]{32})")
PAYMENT_EVENTS = ("installment.paid", "payment_plan.installment_paid")


def mails(folder) -> list:
    """Every e-mail the provider accepted so far, parsed."""
    return [
        message_from_bytes(path.read_bytes(), policy=policy.default)
        for path in sorted(folder.glob("*.eml"))
    ]


def pay_link_of_action_required(folder) -> str | None:
    """The pay link's path in the e-mail asking for a payment method."""
    for mail in mails(folder):
        if mail["Subject"].startswith("Add a payment method"):
            found = PAY_PATH.search(mail.get_body(("plain",)).get_content())
            return found.group(1) if found else None
    return None


def received(receiver, kinds) -> list[tuple[str, dict]]:
    envelopes = [json.loads(r.body) for r in list(receiver.received)]
    return [(e["eventType"], e["data"]) for e in envelopes if e["eventType"] in kinds]


def test_a_failed_installment_is_paid_from_its_pay_link_by_transfer(
    receiver, tmp_path, browser
):
    merchant = make_subscriber(receiver.url)
    _, api_key = merchant_services.api_key_rotate(merchant=merchant)
    drop = tmp_path / "mail"
    drop.mkdir()
    env = {
        "DJANGO_SETTINGS_MODULE": "tests.settings_qcluster",
        "TEST_MAIL_DROP_DIR": str(drop),
    }
    log = tmp_path / "qcluster.log"
    with (
        servers.web_processes(1, extra_env=env) as [base],
        servers.qcluster(log, servers.qcluster_env(**env)) as cluster,
    ):
        servers.wait_until_running(cluster, log)
        shop = Api(base, api_key)
        wallet = f"/api/v1/merchant/{merchant.public_id}/wallet"
        customer, _, card = customer_with_card(
            base, card_number=CARD_EXPIRES_THIS_MONTH
        )
        plan = bought_over_http(shop, customer, merchant, card)
        first = plan["installments"][0]

        # The plan's first due date, next month: the card of this month fails
        # `card_expired`, there is no other method, the installment waits.
        advanced = shop.post(
            f"/api/v1/sandbox/payment-plans/{plan['id']}/advance",
            {"to": first["due_date"]},
        )["data"]
        assert advanced["installments"][0]["status"] == "action_required"
        assert wait_for(lambda: pay_link_of_action_required(drop), 60), tail(log)
        path = pay_link_of_action_required(drop)

        context = browser.new_context(
            base_url=base, viewport={"width": 390, "height": 844}
        )
        page = context.new_page()
        page.set_default_navigation_timeout(NAVIGATION_MS)
        page.goto(path)
        expect(page.get_by_role("heading", level=1)).to_contain_text("ORD-1001")
        assert "ada@mail.example.com" not in page.content()
        page.get_by_label("Bank transfer").check()
        page.get_by_role("button", name="Continue").click()
        account = page.get_by_test_id("account-number")
        expect(account).to_be_visible()
        payment_id = page.url.rstrip("/").rsplit("/", 1)[1]

        # The customer's money lands: the sandbox completes the transfer.
        paid = shop.post(f"/api/v1/sandbox/payments/{payment_id}/complete")["data"]
        assert (paid["payment"]["status"], paid["payment"]["amount"]) == (
            "succeeded",
            FIRST,
        )
        page.get_by_test_id("check-again").click()
        expect(page.get_by_text("Paid. Thank you!")).to_be_visible()
        context.close()

        arrived = wait_for(
            lambda: (
                Counter(kind for kind, _ in received(receiver, PAYMENT_EVENTS))
                == Counter(PAYMENT_EVENTS)
            ),
            60,
        )
        settled = wait_for(
            lambda: not Delivery.objects.exclude(status="delivered").exists(), 60
        )
        final = shop.get(wallet)["data"]
        read = shop.get(f"/api/v1/payment-plans/{plan['id']}")["data"]

    assert arrived, (received(receiver, PAYMENT_EVENTS), tail(log))
    assert settled
    assert all(signed(r) for r in receiver.received)
    for _, data in received(receiver, PAYMENT_EVENTS):
        assert (data["resourceId"], data["amount"], data["channel"]) == (
            first["id"],
            FIRST,
            "bank_transfer",
        )
    # Each event sent reached the receiver exactly once.
    assert Counter(receiver.event_ids()) == Counter(
        Event.objects.filter(merchant=merchant).values_list("public_id", flat=True)
    )
    assert [i["status"] for i in read["installments"]] == [
        "paid",
        "scheduled",
        "scheduled",
    ]
    assert final["available_balance"] == (DEPOSIT - fee(DEPOSIT) + FIRST - fee(FIRST))
    assert "clean" in check_ledger()
