"""End to end over HTTP (DESIGN section 14): a real web process (gunicorn) and a
real `qcluster` on the PostgreSQL test database, a real receiver on 127.0.0.1.

Checkout, one collection (the sandbox's collect-next), a partial refund (no
money moves: processed at once), a full refund (the rest: the plan cancelled,
money paid back in two processor refunds, settled by the sandbox's settlement
pass, which the cluster's scheduler runs): the receiver gets `refund.created`,
`refund.processed` and `payment_plan.cancelled` once per fact, signed, and the
wallet endpoint shows the balance to the kobo at every step."""

import json
from collections import Counter

import pytest
from django.utils import timezone
from django_q.models import Schedule

from config import schedules
from merchants import services as merchant_services
from webhooks.models import Delivery, Event

from .. import servers
from ..scale_out.clusters import tail, wait_for
from ..webhooks.conftest import make_subscriber
from .conftest import check_ledger
from .live_api import Api, bought_over_http, customer_with_card, signed
from .refund_model import fee

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

SETTLEMENT_PASS = "payments-sandbox-refunds-settle"
DEPOSIT, FIRST = 75_000, 58_334  # of 250,000 in 3 monthly installments
REFUND_EVENTS = ("refund.created", "refund.processed", "refund.failed")


def received_data(receiver) -> list[tuple[str, dict]]:
    """(event type, data) of each refund and cancellation received."""
    envelopes = [json.loads(received.body) for received in list(receiver.received)]
    return [
        (envelope["eventType"], envelope["data"])
        for envelope in envelopes
        if envelope["eventType"] in (*REFUND_EVENTS, "payment_plan.cancelled")
    ]


def facts(receiver) -> Counter:
    """How many of each (event type, resource id) were received."""
    return Counter((kind, data["resourceId"]) for kind, data in received_data(receiver))


def settlement_pass_comes() -> None:
    """The deploy's schedules with only the sandbox's settlement pass kept (the
    others, payouts among them, would run at the scheduler's next look too),
    due now: the cluster's scheduler, which looks every 30 s, runs it."""
    schedules.sync()
    Schedule.objects.exclude(name=SETTLEMENT_PASS).delete()
    Schedule.objects.filter(name=SETTLEMENT_PASS).update(next_run=timezone.now())


def test_refunds_over_http_reach_the_receiver_once_signed_and_the_wallet_to_the_kobo(
    receiver, tmp_path
):
    merchant = make_subscriber(receiver.url)
    _, api_key = merchant_services.api_key_rotate(merchant=merchant)
    log = tmp_path / "qcluster.log"
    env = {
        # The web process enqueues for the cluster, as deployed.
        "DJANGO_SETTINGS_MODULE": "tests.settings_qcluster",
    }
    with (
        servers.web_processes(1, extra_env=env) as [base],
        servers.qcluster(log) as cluster,
    ):
        servers.wait_until_running(cluster, log)
        shop = Api(base, api_key)
        wallet = f"/api/v1/merchant/{merchant.public_id}/wallet"
        customer, customer_id, card = customer_with_card(base)
        plan = bought_over_http(shop, customer, merchant, card)
        plan_url = f"/api/v1/payment-plans/{plan['id']}"

        collected = shop.post(
            f"/api/v1/sandbox/payment-plans/{plan['id']}/collect-next"
        )
        kept = DEPOSIT - fee(DEPOSIT) + FIRST - fee(FIRST)
        assert [i["status"] for i in collected["data"]["installments"]] == [
            "paid",
            "scheduled",
            "scheduled",
        ]
        assert shop.get(wallet)["data"]["available_balance"] == kept == 130_001

        partial = shop.post(
            f"{plan_url}/refunds", {"amount": 50_000, "reason": "Charger"}, 201
        )["data"]
        assert (partial["status"], partial["amount_returned"]) == ("processed", 0)
        assert shop.get(wallet)["data"]["available_balance"] == kept

        full = shop.post(
            f"{plan_url}/refunds", {"amount": 200_000, "reason": "Returned"}, 201
        )["data"]
        assert (full["status"], full["amount_reduced"]) == ("pending", 66_666)
        first = collected["data"]["installments"][0]["id"] + "_a1"
        deposit = f"{plan['id']}_d1"
        assert [
            (p["collection_reference"], p["amount"], p["status"]) for p in full["parts"]
        ] == [(first, FIRST, "pending"), (deposit, DEPOSIT, "pending")]
        # The money left the wallet (and the fee account) when it was asked for.
        after = shop.get(wallet)["data"]
        assert after["available_balance"] == 0
        assert [
            (t["type"], t["amount"], t["fee"], t["net"], t["reference"])
            for t in after["transactions"][:2]
        ] == [
            ("refund", -DEPOSIT, -fee(DEPOSIT), fee(DEPOSIT) - DEPOSIT, deposit),
            ("refund", -FIRST, -fee(FIRST), fee(FIRST) - FIRST, first),
        ]

        settlement_pass_comes()
        expected = Counter(
            {
                ("refund.created", partial["id"]): 1,
                ("refund.processed", partial["id"]): 1,
                ("refund.created", full["id"]): 1,
                ("refund.processed", full["id"]): 1,
                ("payment_plan.cancelled", plan["id"]): 1,
            }
        )
        arrived = wait_for(lambda: facts(receiver) == expected, 60)
        settled = wait_for(
            lambda: not Delivery.objects.exclude(status="delivered").exists(), 60
        )
        refunds = shop.get(f"{plan_url}/refunds")["data"]
        final = shop.get(wallet)["data"]

    assert arrived, (facts(receiver), tail(log))
    assert settled
    assert facts(receiver) == expected
    assert all(signed(received) for received in receiver.received)
    [cancelled] = [
        d for kind, d in received_data(receiver) if kind == "payment_plan.cancelled"
    ]
    assert cancelled == {
        "resourceType": "payment_plan",
        "resourceId": plan["id"],
        "orderReference": "ORD-1001",
        "amountPaid": DEPOSIT + FIRST,
        "amountRefunded": 250_000,
        # The full refund's parts were still on their way.
        "amountRefundPending": FIRST + DEPOSIT,
        "amountRemaining": 0,
    }
    # Arrival order is not promised: compared sorted.
    assert sorted(
        (d["resourceId"], kind, d["status"], d["amount"])
        for kind, d in received_data(receiver)
        if kind.startswith("refund.")
    ) == sorted(
        [
            (partial["id"], "refund.created", "processed", 50_000),
            (partial["id"], "refund.processed", "processed", 50_000),
            (full["id"], "refund.created", "pending", 200_000),
            (full["id"], "refund.processed", "processed", 200_000),
        ]
    )
    # Every event was sent, and each reached the receiver exactly once.
    assert Counter(receiver.event_ids()) == Counter(
        Event.objects.filter(merchant=merchant).values_list("public_id", flat=True)
    )
    assert [(r["id"], r["status"]) for r in refunds] == [
        (full["id"], "processed"),
        (partial["id"], "processed"),
    ]
    assert final["available_balance"] == 0
    assert "clean" in check_ledger()
