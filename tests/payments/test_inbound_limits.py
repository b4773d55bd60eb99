"""Endpoints 24 and 25 against requests from anyone: the signature is checked
before anything is stored, refused requests leave a few small records, and a
deeply nested signed body is refused like on every other endpoint."""

import hashlib
import json
from datetime import timedelta

import pytest
import time_machine
from django.utils import timezone
from rest_framework.test import APIClient

from payments.gateway.services import paystack_events_retry
from payments.models import InboundRequest

from .conftest import signed_post
from .inbound import MINUTE, REFUSED_RECORDS_PER_MINUTE

pytestmark = pytest.mark.django_db

MIB = 1024 * 1024

ENDPOINTS = [
    ("paystack", "/api/v1/webhooks/paystack"),
    ("payment_gateway", "/api/v1/webhooks/payment-gateway"),
]
ENDPOINT_IDS = ["endpoint-24", "endpoint-25"]


def one_mib_event() -> bytes:
    head, tail = b'{"event": "charge.success", "data": {"pad": "', b'"}}'
    body = head + b"x" * (MIB - len(head) - len(tail)) + tail
    assert len(body) == MIB
    return body


def stored_bytes(rows) -> int:
    return sum(
        len(bytes(row.body)) + len(json.dumps(row.headers)) + len(row.error)
        for row in rows
    )


@pytest.mark.parametrize(("endpoint", "url"), ENDPOINTS, ids=ENDPOINT_IDS)
@pytest.mark.parametrize(
    "signature", [None, "00" * 64], ids=["unsigned", "wrongly-signed"]
)
def test_fifty_refused_one_mib_requests_leave_a_few_small_records_and_no_body(
    endpoint, url, signature
):
    body = one_mib_event()
    client = APIClient()

    with time_machine.travel(MINUTE, tick=False):
        answers = [
            signed_post(client, url, body, signature=signature) for _ in range(50)
        ]

    assert [answer.status_code for answer in answers] == [401] * 50
    assert {answer.json()["error"]["code"] for answer in answers} == {
        "invalid_signature"
    }
    rows = list(InboundRequest.objects.filter(endpoint=endpoint))
    assert len(rows) == REFUSED_RECORDS_PER_MINUTE
    assert stored_bytes(rows) < REFUSED_RECORDS_PER_MINUTE * 1024
    for row in rows:
        assert bytes(row.body) == b""
        assert row.body_size == MIB
        assert row.body_sha256 == hashlib.sha256(body).hexdigest()
        assert row.signature_valid is False
        assert row.outcome == "refused: missing or invalid signature"
        assert row.processed_at is not None


@pytest.mark.parametrize(("endpoint", "url"), ENDPOINTS, ids=ENDPOINT_IDS)
def test_refused_records_start_again_in_the_next_minute(endpoint, url):
    with time_machine.travel(MINUTE, tick=False):
        for _ in range(REFUSED_RECORDS_PER_MINUTE + 3):
            signed_post(APIClient(), url, b"{}", signature=None)
    with time_machine.travel(MINUTE + timedelta(minutes=1), tick=False):
        answer = signed_post(APIClient(), url, b"{}", signature=None)

    assert answer.status_code == 401
    assert (
        InboundRequest.objects.filter(endpoint=endpoint).count()
        == REFUSED_RECORDS_PER_MINUTE + 1
    )


def test_a_refused_record_keeps_only_a_few_headers_cut_short(db):
    response = APIClient().post(
        "/api/v1/webhooks/payment-gateway",
        b"{}",
        content_type="application/json",
        HTTP_USER_AGENT="u" * 5000,
        HTTP_X_PAYSTACK_SIGNATURE="f" * 5000,
        HTTP_X_PADDING="p" * 5000,
        HTTP_COOKIE="session=secret",
    )

    assert response.status_code == 401
    headers = InboundRequest.objects.get().headers
    assert set(headers) <= {
        "Content-Length",
        "Content-Type",
        "User-Agent",
        "X-Forwarded-For",
        "X-Real-Ip",
        "X-Request-Id",
        "X-Paystack-Signature",
    }
    assert headers["User-Agent"] == "u" * 200
    assert headers["X-Paystack-Signature"] == "f" * 200


@pytest.mark.parametrize(("endpoint", "url"), ENDPOINTS, ids=ENDPOINT_IDS)
def test_signed_requests_are_stored_whole_whatever_the_refused_ones_used_up(
    endpoint, url
):
    with time_machine.travel(MINUTE, tick=False):
        for _ in range(REFUSED_RECORDS_PER_MINUTE + 1):
            signed_post(APIClient(), url, b"{}", signature=None)
        payload = {"event": "an.event.nobody.handles", "data": {"n": 1}}
        answers = [signed_post(APIClient(), url, payload) for _ in range(3)]

    assert [answer.status_code for answer in answers] == [200] * 3
    signed = InboundRequest.objects.filter(endpoint=endpoint, signature_valid=True)
    body = json.dumps(payload).encode()
    assert [bytes(row.body) for row in signed] == [body] * 3
    assert {row.body_size for row in signed} == {len(body)}
    assert {row.body_sha256 for row in signed} == {hashlib.sha256(body).hexdigest()}


# --- deep nesting ----------------------------------------------------------------


def deeply_nested(levels: int = 5000) -> list[bytes]:
    return [
        b'{"event": "charge.success", "data": '
        + b'{"a": ' * levels
        + b"1"
        + b"}" * levels
        + b"}",
        b'{"event": "mandate.cancelled", "data": {"authorization_code": '
        + b"[" * levels
        + b"]" * levels
        + b"}}",
    ]


@pytest.mark.parametrize(("endpoint", "url"), ENDPOINTS, ids=ENDPOINT_IDS)
@pytest.mark.parametrize("body", deeply_nested(), ids=["objects", "arrays"])
def test_a_signed_deeply_nested_body_is_a_400_and_recorded_whole(endpoint, url, body):
    response = signed_post(APIClient(), url, body)

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid_request"
    assert "nested too deeply" in response.json()["error"]["message"]
    row = InboundRequest.objects.get()
    assert row.endpoint == endpoint
    assert bytes(row.body) == body
    assert row.signature_valid is True
    assert "nested too deeply" in row.error
    assert row.outcome.startswith("refused: ")
    assert row.processed_at is not None
    with time_machine.travel(timezone.now() + timedelta(minutes=6)):
        assert paystack_events_retry() == 0
