"""Prometheus metrics at /metrics (DESIGN section 16): readable only with the bearer
METRICS_TOKEN (404 while it is unset, no exception for localhost); requests
labelled by their URL pattern's name; business figures counted from the database
at scrape time, so they move when the real engine collects or declines."""

import pytest
from django.db import transaction
from django.test import Client
from django_q.brokers import get_broker
from rest_framework.test import APIClient

from config.observability import sources
from merchants.models import Merchant
from tests.factories import MerchantFactory
from webhooks import services as webhook_services

from ..checkout.conftest import CARD_POOR, add_card, register
from ..installments.conftest import (
    check_ledger,
    collect,
    installments_of,
    make_active_plan,
)
from ..installments.failed_collections import only_card
from ..metrics import TOKEN, scrape, value

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("metrics_token")]


# --- who may read them -------------------------------------------------------


def test_metrics_are_404_while_no_token_is_set(settings):
    settings.METRICS_TOKEN = ""

    response = Client().get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}")

    assert response.status_code == 404
    assert response.content == b""


def test_a_request_without_the_token_is_refused_even_from_localhost():
    response = Client(REMOTE_ADDR="127.0.0.1").get("/metrics")

    assert response.status_code == 401
    assert response["WWW-Authenticate"] == 'Bearer realm="metrics"'
    assert response.content == b""


@pytest.mark.parametrize(
    "authorization",
    [f"Bearer {TOKEN}x", f"Bearer {TOKEN[:-1]}", "Bearer wrong", f"Token {TOKEN}"],
    ids=["longer", "shorter", "other", "other scheme"],
)
def test_a_wrong_token_is_refused_without_detail(authorization):
    response = Client().get("/metrics", HTTP_AUTHORIZATION=authorization)

    assert response.status_code in (401, 403)
    assert response.content == b""


def test_a_short_token_stops_the_service_at_start():
    from .production import manage

    result = manage("check", METRICS_TOKEN="short")

    assert result.returncode != 0
    assert "METRICS_TOKEN must be at least 32 characters" in result.stderr


# --- requests ----------------------------------------------------------------


def test_requests_are_counted_by_route_name_never_by_path(merchant_with_key):
    client = Client()
    before = scrape(client)
    history = "/api/v1/merchant/{}/api-key/history"
    headers = {"HTTP_AUTHORIZATION": f"Bearer {merchant_with_key.api_key}"}

    client.get(history.format(merchant_with_key.merchant.public_id), **headers)
    client.get(history.format(merchant_with_key.merchant.public_id) + "/", **headers)
    client.get(history.format("mer_" + "0" * 24), **headers)
    client.get("/no/such/page/mer_secret")
    after = scrape(client)

    route = "merchant-api-key-history"
    assert (
        value(after, "http_requests_total", route=route, method="GET", status="200")
        - value(before, "http_requests_total", route=route, method="GET", status="200")
        == 2
    )
    assert (
        value(after, "http_requests_total", route=route, method="GET", status="404")
        - value(before, "http_requests_total", route=route, method="GET", status="404")
        == 1
    )
    assert (
        value(after, "http_request_duration_seconds_count", route=route, method="GET")
        - value(
            before, "http_request_duration_seconds_count", route=route, method="GET"
        )
        == 3
    )
    assert value(
        after, "http_requests_total", route="unmatched", method="GET", status="404"
    ) > value(
        before, "http_requests_total", route="unmatched", method="GET", status="404"
    )
    labels = {v for (_, pairs) in after for _, v in pairs}
    paths = (merchant_with_key.merchant.public_id, "0" * 24, "no/such", "key/history")
    assert not [v for v in labels if any(part in v for part in paths)]


# --- business figures, from the database ------------------------------------


def test_a_collection_by_the_engine_moves_the_collections_counter():
    plan = make_active_plan().plan
    first = installments_of(plan)[0]
    before = scrape()

    collect(first.due_date)
    after = scrape()

    assert (
        value(after, "installments_collections_total", kind="installment")
        - value(before, "installments_collections_total", kind="installment")
        == 1
    )
    assert (
        value(after, "installments_collected_kobo_total", kind="installment")
        - value(before, "installments_collected_kobo_total", kind="installment")
        == first.amount
    )
    assert value(after, "installments_collections_total", kind="deposit") == value(
        before, "installments_collections_total", kind="deposit"
    )
    assert value(after, "installments_collections_total", kind="deposit") >= 1
    assert value(after, "installments_plans", status="active") >= 1
    check_ledger()


def test_a_declined_collection_counts_its_reason():
    setup = make_active_plan()
    only_card(setup, CARD_POOR)
    first = installments_of(setup.plan)[0]
    before = scrape()

    collect(first.due_date)
    after = scrape()

    declines = "installments_declines_total"
    reason = {"kind": "installment", "reason": "insufficient_funds"}
    assert value(after, declines, **reason) - value(before, declines, **reason) == 1
    assert value(after, declines, kind="installment", reason="card_expired") == 0
    assert value(after, "installments_collections_total", kind="installment") == 0
    check_ledger()


def test_a_refund_moves_the_refunds_counter():
    setup = make_active_plan()
    before = scrape()

    # Smaller than what is unpaid: it reduces the last installment and is
    # processed at once (no money moves).
    response = APIClient().post(
        f"{setup.url}/refunds",
        {"amount": 1_000, "reason": "Returned a cable"},
        format="json",
        **setup.owner.headers,
    )
    assert response.status_code == 201, response.content
    after = scrape()

    processed = {"status": "processed"}
    refunds, kobo = "installments_refunds_total", "installments_refunded_kobo_total"
    assert value(after, refunds, **processed) - value(before, refunds, **processed) == 1
    assert value(after, kobo, **processed) - value(before, kobo, **processed) == 1_000
    assert value(after, refunds, status="pending") == value(
        before, refunds, status="pending"
    )
    check_ledger()


def test_webhook_deliveries_due_and_their_lag(time_machine):
    merchant = MerchantFactory(
        status=Merchant.Status.ACTIVE,
        webhook_url="https://hooks.example.com/in",
        webhook_secret="whsec_0123456789",
    )
    time_machine.move_to("2026-03-02 10:00:00+01:00", tick=False)
    with transaction.atomic():
        webhook_services.emit_event(
            merchant=merchant, event_type="payment.success", data={"n": 1}
        )

    time_machine.move_to("2026-03-02 10:02:00+01:00", tick=False)
    samples = scrape()

    assert value(samples, "webhooks_deliveries", status="pending") == 1
    assert value(samples, "webhooks_deliveries_due") == 1
    assert value(samples, "webhooks_delivery_lag_seconds") == 120
    assert (
        value(
            samples,
            "webhooks_delivery_attempts_total",
            trigger="scheduled",
            result="failed",
        )
        == 0
    )


def test_the_queue_depth_is_the_brokers():
    before = value(scrape(), "taskqueue_waiting_tasks")

    get_broker().enqueue("a task's signed package")

    assert value(scrape(), "taskqueue_waiting_tasks") == before + 1


def test_a_verification_charges_refund_is_counted(committed):
    shopper = register("ada@mail.example.com")
    before = scrape()

    with committed():
        add_card(shopper)
    after = scrape()

    def refunds(samples):
        return sum(
            v
            for (name, _), v in samples.items()
            if name == "payments_verification_refunds"
        )

    assert refunds(after) - refunds(before) == 1


# --- failures ----------------------------------------------------------------


def test_a_source_that_fails_costs_only_its_own_figures(monkeypatch, caplog):
    def broken():
        raise RuntimeError("a bug in a source")

    monkeypatch.setitem(sources._sources, "broken", broken)

    first = scrape()
    second = scrape()

    assert value(first, "metrics_source_up", source="broken") == 0
    assert value(first, "metrics_source_up", source="installments") == 1
    assert ("webhooks_deliveries_due", frozenset()) in first
    assert value(second, "metrics_source_up", source="broken") == 0
    logged = [r for r in caplog.records if "'broken'" in r.getMessage()]
    assert len(logged) == 1, "logged when it starts failing, not every scrape"


@pytest.mark.usefixtures("database_refusing")
def test_metrics_answer_while_the_database_refuses():
    samples = scrape()

    for source in ("installments", "payments", "webhooks", "taskqueue"):
        assert value(samples, "metrics_source_up", source=source) == 0
    assert any(name == "http_requests_total" for name, _ in samples)
