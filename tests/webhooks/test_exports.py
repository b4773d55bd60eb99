"""The webhook delivery log as CSV (issue 18, DESIGN section 16): from the
dashboard with the log's filters, and from `GET /api/v1/events?format=csv`,
each event with its delivery; only the merchant's own; formulas neutralised."""

import csv
import io

import pytest
from django.test import Client

from webhooks.models import Delivery

from ..conftest import bearer, make_merchant_with_key
from ..dashboards import sign_in
from .events import emit, settle

pytestmark = pytest.mark.django_db


def rows_of(response) -> list[dict]:
    assert response.status_code == 200, response.content[:500]
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    text = b"".join(response.streaming_content).decode()
    return list(csv.DictReader(io.StringIO(text)))


@pytest.fixture
def log():
    """Three events of one merchant (one delivered), one of another merchant."""
    shop = make_merchant_with_key()
    paid = emit(shop.merchant, "payment.success", reference="ORD-1")
    released = emit(shop.merchant, "goods.release", reference="@SUM(A1)")
    failed = emit(shop.merchant, "payment.failed", reference="ORD-3")
    settle(paid, Delivery.Status.DELIVERED)
    other = emit(make_merchant_with_key().merchant, "payment.success")
    return shop, paid, released, failed, other


def test_the_log_downloads_with_its_filters_and_only_the_merchants_events(log):
    shop, paid, released, failed, other = log
    browser = sign_in(Client(), shop.merchant)

    page = browser.get("/dashboard/webhooks/?status=delivered").content.decode()
    everything = rows_of(browser.get("/dashboard/webhooks/deliveries.csv"))
    delivered = rows_of(
        browser.get("/dashboard/webhooks/deliveries.csv?status=delivered")
    )
    released_only = rows_of(
        browser.get("/dashboard/webhooks/deliveries.csv?event_type=goods.release")
    )

    assert 'href="/dashboard/webhooks/deliveries.csv?status=delivered"' in page
    assert [row["event_id"] for row in everything] == [
        failed.public_id,
        released.public_id,
        paid.public_id,
    ]
    assert other.public_id not in {row["event_id"] for row in everything}
    assert [row["event_id"] for row in delivered] == [paid.public_id]
    assert delivered[0]["delivery_status"] == "delivered"
    assert delivered[0]["delivered_at"].endswith("Z")
    assert [row["event_id"] for row in released_only] == [released.public_id]
    assert released_only[0]["order_reference"] == "'@SUM(A1)"


def test_the_events_csv_has_the_rows_of_the_json(api, log):
    shop, *_ = log
    headers = bearer(shop.api_key)

    listed = api.get("/api/v1/events?type=payment.success", **headers).json()
    rows = rows_of(api.get("/api/v1/events?type=payment.success&format=csv", **headers))

    assert [row["event_id"] for row in rows] == [
        event["eventId"] for event in listed["data"]
    ]
    assert len(rows) == listed["total"] == 1
    assert rows[0]["event_type"] == listed["data"][0]["eventType"]
    assert rows[0]["created_at"] == listed["data"][0]["createdAt"]
    assert rows[0]["delivery_status"] == "delivered"
