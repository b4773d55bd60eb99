"""End to end over HTTP (DESIGN section 19): a real web process (gunicorn) and
a real `qcluster` on the PostgreSQL test database, a real receiver on
127.0.0.1, and Chromium.

A customer buys on the sandbox's disputed card; the sandbox disputes the
deposit's collection a minute later (the sandbox's pass is run here with the
clock moved past that minute, not waited for); the merchant answers the
dispute in the dashboard with a PDF; the bank decides it for the customer
(the sandbox's resolve call). The receiver gets `dispute.created`,
`dispute.updated` and `dispute.lost` once each, signed; the plan is
`disputed`, and the wallet is right to the kobo."""

import json
from collections import Counter
from datetime import timedelta

import pytest
import time_machine
from django.utils import timezone
from playwright.sync_api import expect

from installments.disputes.models import Dispute
from merchants import services as merchant_services
from payments.gateway.processors.sandbox.values import CARD_DISPUTED
from payments.gateway.services import sandbox_disputes_run
from payments.ledger.fees import platform_fee
from webhooks.models import Delivery, Event

from .. import servers
from ..installments.conftest import check_ledger
from ..installments.live_api import (
    Api,
    bought_over_http,
    customer_with_card,
    signed,
)
from ..scale_out.clusters import tail, wait_for
from ..webhooks.conftest import make_subscriber
from .conftest import DESKTOP, NAVIGATION_MS, STEP_MS, sign_in

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

DISPUTE_EVENTS = ("dispute.created", "dispute.updated", "dispute.lost")
RECEIPT = {
    "name": "receipt.pdf",
    "mimeType": "application/pdf",
    "buffer": b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n",
}


def received(receiver, kinds) -> list[tuple[str, dict]]:
    envelopes = [json.loads(r.body) for r in list(receiver.received)]
    return [(e["eventType"], e["data"]) for e in envelopes if e["eventType"] in kinds]


def test_a_disputed_deposit_is_answered_in_the_dashboard_and_lost(
    receiver, tmp_path, browser
):
    merchant = make_subscriber(receiver.url)
    _, api_key = merchant_services.api_key_rotate(merchant=merchant)
    env = {"DJANGO_SETTINGS_MODULE": "tests.settings_qcluster"}
    log = tmp_path / "qcluster.log"
    with (
        servers.web_processes(1, extra_env=env) as [base],
        servers.qcluster(log, servers.qcluster_env(**env)) as cluster,
    ):
        servers.wait_until_running(cluster, log)
        shop = Api(base, api_key)
        wallet = f"/api/v1/merchant/{merchant.public_id}/wallet"
        customer, _, card = customer_with_card(base, card_number=CARD_DISPUTED)
        plan = bought_over_http(shop, customer, merchant, card)
        deposit = plan["deposit_amount"]
        assert deposit > 0
        assert shop.get(wallet)["data"]["available_balance"] == (
            deposit - platform_fee(deposit)
        )

        # The customer's bank disputes the deposit's collection a minute after
        # it succeeded: the sandbox's pass, run with the clock past the minute.
        with time_machine.travel(timezone.now() + timedelta(minutes=2), tick=True):
            sandbox_disputes_run()
        assert wait_for(
            lambda: Dispute.objects.filter(plan__public_id=plan["id"]).exists(), 60
        ), tail(log)
        dispute = Dispute.objects.get(plan__public_id=plan["id"])
        assert (dispute.status, dispute.amount) == (
            Dispute.Status.NEEDS_RESPONSE,
            deposit,
        )

        context = browser.new_context(base_url=base, viewport=DESKTOP)
        page = context.new_page()
        page.set_default_timeout(STEP_MS)
        page.set_default_navigation_timeout(NAVIGATION_MS)
        sign_in(page, merchant)
        page.get_by_role("navigation", name="Dashboard").get_by_role(
            "link", name="Disputes"
        ).click()
        page.wait_for_url("**/dashboard/disputes/")
        page.get_by_role("link", name=dispute.public_id).click()
        expect(page.get_by_role("heading", level=1)).to_contain_text(dispute.public_id)
        expect(page.get_by_test_id("dispute-status")).to_have_text(
            "Needs response", ignore_case=True
        )
        form = page.get_by_test_id("answer-form")
        # The customer's e-mail, name and phone are filled in for the merchant.
        expect(form.get_by_label("Customer's e-mail")).to_have_value(
            "ada@mail.example.com"
        )
        form.get_by_label("What was sold").fill(
            "One Samsung Galaxy A55, delivered to the customer."
        )
        form.get_by_label("Delivery address").fill("12 Marina Road, Lagos")
        form.get_by_label("Message to the bank").fill(
            "The customer signed for the phone on delivery."
        )
        form.get_by_label("Files").set_input_files(files=[RECEIPT])
        form.get_by_role("button", name="Send the answer").click()
        expect(page.get_by_role("status")).to_contain_text("the bank now reviews it")
        expect(page.get_by_test_id("dispute-status")).to_have_text(
            "Under review", ignore_case=True
        )
        expect(page.get_by_test_id("evidence-files")).to_contain_text("receipt.pdf")
        context.close()

        # The customer's bank decides for the customer.
        lost = shop.post(
            f"/api/v1/sandbox/disputes/{dispute.public_id}/resolve",
            {"outcome": "lost"},
        )["data"]
        assert lost["status"] == "lost"

        arrived = wait_for(
            lambda: (
                Counter(kind for kind, _ in received(receiver, DISPUTE_EVENTS))
                == Counter(DISPUTE_EVENTS)
            ),
            60,
        )
        settled = wait_for(
            lambda: not Delivery.objects.exclude(status="delivered").exists(), 60
        )
        final = shop.get(wallet)["data"]
        read = shop.get(f"/api/v1/payment-plans/{plan['id']}")["data"]

    assert arrived, (received(receiver, DISPUTE_EVENTS), tail(log))
    assert settled
    assert all(signed(r) for r in receiver.received)
    # Each event sent reached the receiver exactly once.
    assert Counter(receiver.event_ids()) == Counter(
        Event.objects.filter(merchant=merchant).values_list("public_id", flat=True)
    )
    assert read["status"] == "disputed"
    # The deposit collected (+D - fee(D)), held (-D), lost (the fee on it
    # given back, +fee(D)): nothing is left in this merchant's wallet.
    collected = deposit - platform_fee(deposit)
    assert final["available_balance"] == collected - deposit + platform_fee(deposit)
    assert final["available_balance"] == 0
    assert "clean" in check_ledger()
