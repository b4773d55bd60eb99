"""Idempotency of endpoint 2 under real concurrency (PostgreSQL only)."""

import threading
import uuid
from datetime import timedelta

import pytest
from django.conf import settings
from django.db import connection
from django.utils import timezone
from rest_framework.test import APIClient

from checkout.models import CheckoutSession, IdempotencyRecord

from ..conftest import make_merchant_with_key
from .conftest import SESSIONS_URL, key_header, session_body

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.skipif(
        not settings.IS_POSTGRES,
        reason="SQLite serialises every write transaction, so the race between "
        "concurrent inserts this test targets cannot happen there; run with "
        "DATABASE_URL=postgres://...",
    ),
    pytest.mark.django_db(transaction=True),
]

THREADS = 20


def send_at_once(owner, key, bodies):
    """POST each body from its own thread (own DB connection), released together."""
    barrier = threading.Barrier(len(bodies))
    answers = [None] * len(bodies)
    errors = []

    def send(index, body):
        try:
            client = APIClient()
            barrier.wait(timeout=60)
            answers[index] = client.post(
                SESSIONS_URL,
                body,
                format="json",
                **owner.headers,
                **key_header(key),
            )
        except Exception as error:  # reported by the main thread
            errors.append(error)
        finally:
            connection.close()

    threads = [
        threading.Thread(target=send, args=(index, body))
        for index, body in enumerate(bodies)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert errors == []
    return answers


def test_twenty_simultaneous_requests_with_one_key_make_one_session():
    owner = make_merchant_with_key()
    key = str(uuid.uuid4())
    bodies = [
        session_body(owner.merchant, order_reference=f"ORD-{index}")
        for index in range(THREADS)
    ]

    answers = send_at_once(owner, key, bodies)

    assert [answer.status_code for answer in answers] == [201] * THREADS
    assert len({answer.content for answer in answers}) == 1
    replayed = [answer.get("Idempotent-Replayed") for answer in answers]
    assert replayed.count(None) == 1
    assert replayed.count("true") == THREADS - 1
    assert CheckoutSession.objects.count() == 1
    assert IdempotencyRecord.objects.count() == 1
    token = answers[0].json()["data"]["session_token"]
    assert IdempotencyRecord.objects.get().session.token == token


def test_twenty_simultaneous_reuses_of_an_expired_key_make_one_new_session():
    owner = make_merchant_with_key()
    key = str(uuid.uuid4())
    old = APIClient().post(
        SESSIONS_URL,
        session_body(owner.merchant),
        format="json",
        **owner.headers,
        **key_header(key),
    )
    IdempotencyRecord.objects.update(expires_at=timezone.now() - timedelta(hours=1))

    answers = send_at_once(owner, key, [session_body(owner.merchant)] * THREADS)

    assert [answer.status_code for answer in answers] == [201] * THREADS
    assert len({answer.content for answer in answers}) == 1
    assert answers[0].content != old.content
    assert CheckoutSession.objects.count() == 2
    assert IdempotencyRecord.objects.count() == 1
