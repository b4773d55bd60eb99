"""End to end over HTTP (DESIGN section 15): a real web process (gunicorn) on
the PostgreSQL test database and a real receiver on 127.0.0.1. Customers add a
sandbox card through the card page and buy on 6 monthly installments; the
merchant's API key drives each plan to its end with the sandbox clock.

The receiver gets exactly the events `docs/sandbox.md` lists for each
walkthrough, each signed: the sequences are read from the document's tables,
so the document cannot drift from what the service does. The order the
document promises is the events API's (oldest first), with `createdAt` never
going back and shared by the events of one step; webhooks may arrive in any
order, but the web process here sends them one at a time
(`WEBHOOK_DELIVERY_THREADS=1`), so they arrive in that order too."""

import json
import re
from datetime import date, timedelta
from pathlib import Path

import pytest

from installments.notifications.models import Message
from merchants import services as merchant_services
from payments.gateway.declines import decline_of
from payments.gateway.processors.sandbox.values import (
    CARD_EXPIRES_THIS_MONTH,
    CARD_FAILS_TWICE,
)
from webhooks.models import EVENT_TYPES

from .. import servers
from ..webhooks.conftest import make_subscriber
from .conftest import check_ledger
from .live_api import Api, customer_with_card, signed

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

DOC = Path(__file__).resolve().parents[2] / "docs" / "sandbox.md"
WEB_ENV = {
    "WEBHOOK_ALLOW_PRIVATE_NETWORKS": "true",
    "WEBHOOK_ALLOW_HTTP": "true",
    "WEBHOOK_DELIVERY_THREADS": "1",
}


def walkthrough(name: str) -> list[tuple[str, str | None]]:
    """The (event type, reason) sequence the table after `<!-- walkthrough:
    name -->` lists: each row's events, in order, `times` times over."""
    text = DOC.read_text()
    table = text[text.index(f"<!-- walkthrough: {name} -->") :].split("\n\n")[0]
    rows = [line for line in table.splitlines() if line.startswith("| `")]
    assert rows, f"no table after the walkthrough marker {name!r}"
    sequence: list[tuple[str, str | None]] = []
    for row in rows:
        events, times, _when = (cell.strip() for cell in row.strip("|").split("|"))
        listed = []
        for item in events.split(","):
            names = re.findall(r"`([^`]+)`", item)
            assert names and names[0] in EVENT_TYPES, (name, item)
            listed.append((names[0], names[1] if len(names) > 1 else None))
        sequence += listed * int(times)
    return sequence


def introduction(name: str) -> str:
    """The paragraph just before the walkthrough's table: what it promises."""
    text = DOC.read_text()
    before = text[: text.index(f"<!-- walkthrough: {name} -->")].rstrip()
    return " ".join(before.split("\n\n")[-1].split())


def listed_oldest_first(shop: "Api") -> list[dict]:
    """The merchant's events as `GET /api/v1/events` gives them (newest first),
    read oldest first, as the document says to."""
    answer = shop.get("/api/v1/events?limit=100")
    assert answer["total"] == len(answer["data"])
    return list(reversed(answer["data"]))


def assert_the_documented_order(name: str, events: list[dict]) -> None:
    """What the walkthrough's introduction promises a merchant: the events
    API, read oldest first, lists the table's sequence; `createdAt` never goes
    back down it; the events of one step share one `createdAt` (the checkout's,
    and each installment's paid pair with the completion or a failure with the
    default that follows it)."""
    promise = introduction(name)
    assert "GET /api/v1/events` gives them oldest first" in promise, promise
    assert "same `createdAt`" in promise or "one `createdAt`" in promise, promise
    assert "in this order" not in promise
    assert as_sequence_of(events) == walkthrough(name)
    created = [event["createdAt"] for event in events]
    assert created == sorted(created)
    checkout = [e for e in events if e["createdAt"] == created[0]]
    assert [e["eventType"] for e in checkout] == [
        "payment.success",
        *["debit.scheduled"] * 6,
        "goods.release",
    ]
    for earlier, later in zip(events, events[1:], strict=False):
        if later["eventType"] in (
            "installment.paid",
            "payment_plan.completed",
            "payment_plan.defaulted",
        ):
            assert later["createdAt"] == earlier["createdAt"], (earlier, later)


def as_sequence_of(events: list[dict]) -> list[tuple[str, str | None]]:
    return [(e["eventType"], e["data"].get("reason")) for e in events]


def received(receiver, path: str) -> list:
    return [item for item in list(receiver.received) if item.path == path]


def as_sequence(items) -> list[tuple[str, str | None]]:
    bodies = [json.loads(item.body) for item in items]
    return [(b["eventType"], b["data"].get("reason")) for b in bodies]


def bought(base: str, shop: Api, merchant, email: str, card_number: str) -> dict:
    """A checkout of 250,000 kobo on 6 monthly installments paid with the card."""
    customer, _, card = customer_with_card(base, email, card_number)
    token = shop.post(
        "/api/v1/checkout/sessions",
        {
            "merchant_id": merchant.public_id,
            "amount": 250_000,
            "currency": "NGN",
            "title": "Samsung Galaxy A55",
            "order_reference": f"ORD-{email.split('@')[0]}",
            "customer_email": email,
        },
        expect=201,
    )["data"]["session_token"]
    return customer.post(
        f"/api/v1/checkout/sessions/{token}/complete",
        {
            "schedule_type": "monthly",
            "installment_count": 6,
            "payment_method_id": card,
            "terms_accepted": True,
        },
        expect=201,
    )["data"]


def advance(shop: Api, plan: dict, to: date) -> dict:
    return shop.post(
        f"/api/v1/sandbox/payment-plans/{plan['id']}/advance", {"to": to.isoformat()}
    )


def due(plan: dict, index: int) -> date:
    return date.fromisoformat(plan["installments"][index]["due_date"])


def api_key(merchant) -> str:
    return merchant_services.api_key_rotate(merchant=merchant)[1]


def test_the_documented_walkthroughs_reach_the_receiver_exactly_in_order_signed(
    receiver,
):
    fails_twice = make_subscriber(f"{receiver.url}/fails-twice")
    expired = make_subscriber(f"{receiver.url}/expired-card")
    with servers.web_processes(1, extra_env=WEB_ENV) as [base]:
        shop = Api(base, api_key(fails_twice))
        plan = bought(base, shop, fails_twice, "ada@mail.example.com", CARD_FAILS_TWICE)
        completed = advance(shop, plan, due(plan, -1) + timedelta(days=3))["data"]

        other = Api(base, api_key(expired))
        doomed = bought(
            base, other, expired, "bola@mail.example.com", CARD_EXPIRES_THIS_MONTH
        )
        waiting = advance(other, doomed, due(doomed, 0))["data"]
        defaulted = advance(other, doomed, due(doomed, -1) + timedelta(days=3))["data"]
        listed = {"fails-twice": listed_oldest_first(shop)}
        listed["expired-card"] = listed_oldest_first(other)

    for name, events in listed.items():
        assert_the_documented_order(name, events)

    assert completed["status"] == "completed"
    assert [(i["status"], i["attempts"]) for i in completed["installments"]] == [
        ("paid", 3)
    ] * 6
    first = received(receiver, "/hooks/fails-twice")
    assert as_sequence(first) == walkthrough("fails-twice")

    assert [i["status"] for i in waiting["installments"]] == ["action_required"] + [
        "scheduled"
    ] * 5
    assert Message.objects.filter(
        kind="action_required",
        customer__email="bola@mail.example.com",
        status="sent",
    ).exists()
    assert defaulted["status"] == "defaulted"
    assert [i["status"] for i in defaulted["installments"]] == ["defaulted"] + [
        "scheduled"
    ] * 5
    second = received(receiver, "/hooks/expired-card")
    assert as_sequence(second) == walkthrough("expired-card")

    for item in first + second:
        assert signed(item)
        body = json.loads(item.body)
        if body["eventType"] == "payment.failed":
            reason = body["data"]["reason"]
            assert body["data"]["retryable"] is decline_of(reason).retryable
    assert len({item.headers["x-service-event-id"] for item in first + second}) == (
        len(first) + len(second)
    )
    assert "clean" in check_ledger()
