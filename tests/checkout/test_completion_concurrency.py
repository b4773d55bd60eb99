"""Concurrent completions of one checkout charge the deposit once (PostgreSQL)."""

import pytest
from django.conf import settings
from rest_framework.test import APIClient

from checkout.models import CheckoutSession
from installments.deposits.models import DepositAttempt
from installments.plans.models import PaymentPlan
from payments.models import LedgerTransaction

from ..concurrency import run_concurrently
from .conftest import add_card, complete_url, deposit_charges, open_session, register

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.skipif(
        not settings.IS_POSTGRES,
        reason="SQLite serialises every write transaction, so two completions "
        "cannot overlap there; run with DATABASE_URL=postgres://...",
    ),
    pytest.mark.django_db(transaction=True),
]

THREADS = 8


def completer(shopper, token, method_id):
    """One request from its own client, as a second browser tab would send."""

    def send():
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {shopper.access}")
        return client.post(
            complete_url(token),
            {
                "schedule_type": "monthly",
                "installment_count": 3,
                "payment_method_id": method_id,
                "terms_accepted": True,
            },
            format="json",
        )

    return send


def test_two_simultaneous_completions_of_one_session_charge_once(merchant_with_key):
    shopper = register("ada@mail.example.com")
    card = add_card(shopper)
    token = open_session(merchant_with_key)

    answers = run_concurrently(completer(shopper, token, card), 2)

    statuses = sorted(answer.status_code for answer in answers)
    assert statuses == [201, 409], [answer.content for answer in answers]
    [refused] = [answer for answer in answers if answer.status_code == 409]
    assert refused.json()["error"]["code"] in (
        "payment_in_progress",
        "session_completed",
    )
    assert deposit_charges().count() == 1
    assert DepositAttempt.objects.count() == 1
    assert PaymentPlan.objects.get().status == "active"
    assert LedgerTransaction.objects.filter(kind="collection").count() == 1
    assert CheckoutSession.objects.get(token=token).status == "completed"


def test_many_simultaneous_completions_of_one_session_charge_once(merchant_with_key):
    shopper = register("ada@mail.example.com")
    card = add_card(shopper)
    token = open_session(merchant_with_key)

    answers = run_concurrently(completer(shopper, token, card), THREADS)

    statuses = [answer.status_code for answer in answers]
    assert statuses.count(201) == 1, [answer.content for answer in answers]
    assert statuses.count(409) == THREADS - 1
    assert deposit_charges().count() == 1
    assert LedgerTransaction.objects.filter(kind="collection").count() == 1


def test_simultaneous_completions_of_two_sessions_of_one_order_charge_once(
    merchant_with_key,
):
    shopper = register("ada@mail.example.com")
    card = add_card(shopper)
    tokens = [open_session(merchant_with_key) for _ in range(2)]
    senders = [completer(shopper, token, card) for token in tokens]
    turn = iter(range(2))

    answers = run_concurrently(lambda: senders[next(turn)](), 2)

    assert sorted(answer.status_code for answer in answers) == [201, 409]
    assert deposit_charges().count() == 1
    assert CheckoutSession.objects.filter(status="completed").count() == 1
