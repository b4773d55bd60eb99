"""The deposit by bank transfer or USSD at the hosted checkout (DESIGN section
17), over Django's test client as a customer would, with the sandbox's
completion and expiry: the page shows the account or code, the processor's
confirmation settles the deposit as a card's would, an expired one fails with
`expired` and the customer may choose again, and a plan without a card or
mandate only at a merchant with `manual_collection` on."""

import json
from datetime import timedelta

import pytest
import time_machine
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from checkout.models import CheckoutSession
from checkout.services import deposit_offline_by_public_id, deposits_offline_expire
from installments.deposits.models import DepositAttempt
from installments.plans.models import PaymentPlan
from payments.gateway.errors import SandboxAmountMismatch
from payments.gateway.services.sandbox_offline import sandbox_offline_complete
from payments.ledger.models import LedgerTransaction
from webhooks.models import Event

from ..conftest import make_merchant_with_key
from ..installments.conftest import check_ledger
from .conftest import deposit_charges, open_session
from .hosted import add_card_on_page, register_on_page, text


@pytest.fixture
def browser():
    return Client()


def _signed_in(browser, owner) -> str:
    token = open_session(owner)
    assert register_on_page(browser, token).status_code == 303
    return token


def _pay_by(browser, token, channel, method_id="", **extra):
    return browser.post(
        f"/checkout/{token}/pay",
        {
            "schedule_type": "monthly",
            "installment_count": "3",
            "payment_method_id": method_id,
            "deposit_channel": channel,
            "terms_accepted": "yes",
            **extra,
        },
    )


def _attempt() -> DepositAttempt:
    return DepositAttempt.objects.select_related("plan").get()


def _events(kind: str) -> list[dict]:
    """The `data` of each event of this type, oldest first."""
    return [
        json.loads(event.body)["data"]
        for event in Event.objects.filter(event_type=kind).order_by("pk")
    ]


def test_a_transfer_deposit_shows_the_account_and_settles_on_the_processor_event(
    browser, merchant_with_key
):
    token = _signed_in(browser, merchant_with_key)
    method = add_card_on_page(browser, token)

    answer = _pay_by(browser, token, "bank_transfer", method)

    assert answer.status_code == 303
    assert answer["Location"] == f"/checkout/{token}/deposit"
    attempt = _attempt()
    assert attempt.status == "processing" and attempt.channel == "bank_transfer"
    assert attempt.public_id.startswith("pay_")
    assert attempt.expires_at == attempt.created_at + timedelta(minutes=30) or (
        abs(attempt.expires_at - attempt.created_at - timedelta(minutes=30))
        < timedelta(seconds=5)
    )
    page = browser.get(answer["Location"])
    assert page.status_code == 200
    assert attempt.account_number and attempt.account_number in text(page)
    # checkout.js asks again while it waits; never a meta refresh (WCAG 2.2.1).
    assert "data-deposit-poll=" in page.content.decode()
    assert 'http-equiv="refresh"' not in page.content.decode()
    # The checkout page sends the customer back to the deposit while it waits.
    assert browser.get(f"/checkout/{token}")["Location"].endswith("/deposit")
    assert not deposit_charges().exists()  # nothing charged on the card
    assert not _events("payment.success")  # nothing announced while pending

    assert deposit_offline_by_public_id(attempt.public_id) == attempt
    sandbox_offline_complete(reference=attempt.reference)

    attempt.refresh_from_db()
    plan = PaymentPlan.objects.get()
    assert attempt.status == "succeeded"
    assert plan.status == "active" and plan.collection == "auto"
    assert plan.installments.count() == 3
    session = CheckoutSession.objects.get(token=token)
    assert session.status == "completed"
    [success] = _events("payment.success")
    assert success["channel"] == "bank_transfer"
    assert success["amount"] == attempt.amount
    assert LedgerTransaction.objects.filter(
        kind="collection", reference=attempt.reference
    ).exists()
    done = browser.get(f"/checkout/{token}/deposit")
    assert done["Location"] == f"/checkout/{token}/done"
    assert "clean" in check_ledger()


def test_a_ussd_deposit_shows_the_code(browser, merchant_with_key):
    token = _signed_in(browser, merchant_with_key)
    method = add_card_on_page(browser, token)

    answer = _pay_by(browser, token, "ussd", method, ussd_bank="737")

    attempt = _attempt()
    assert attempt.channel == "ussd" and attempt.ussd_code
    assert attempt.ussd_code in text(browser.get(answer["Location"]))


def test_a_ussd_deposit_without_a_known_bank_is_refused_and_opens_nothing(
    browser, merchant_with_key
):
    token = _signed_in(browser, merchant_with_key)
    method = add_card_on_page(browser, token)

    answer = _pay_by(browser, token, "ussd", method, ussd_bank="999")

    assert answer.status_code == 400
    assert "Choose your bank" in text(answer)
    assert not DepositAttempt.objects.exists()


def test_another_amount_is_refused_and_settles_nothing(browser, merchant_with_key):
    token = _signed_in(browser, merchant_with_key)
    _pay_by(browser, token, "bank_transfer", add_card_on_page(browser, token))
    attempt = _attempt()

    with pytest.raises(SandboxAmountMismatch):
        sandbox_offline_complete(reference=attempt.reference, amount=attempt.amount - 1)

    attempt.refresh_from_db()
    assert attempt.status == "processing"
    assert PaymentPlan.objects.get().status == "pending"


def test_an_expired_transfer_fails_with_expired_and_the_customer_pays_again(
    browser, merchant_with_key
):
    token = _signed_in(browser, merchant_with_key)
    method = add_card_on_page(browser, token)
    _pay_by(browser, token, "bank_transfer", method)
    attempt = _attempt()

    with time_machine.travel(timezone.now() + timedelta(minutes=29)):
        assert deposits_offline_expire() == 0
    with time_machine.travel(timezone.now() + timedelta(minutes=31)):
        assert deposits_offline_expire() == 1

    attempt.refresh_from_db()
    assert attempt.status == "failed" and attempt.failure_reason == "expired"
    [failed] = _events("payment.failed")
    assert failed["reason"] == "expired"
    assert failed["retryable"] is True
    assert failed["channel"] == "bank_transfer"
    page = browser.get(f"/checkout/{token}/deposit")
    assert "The time to pay ran out" in text(page)
    assert f"/checkout/{token}" in page.content.decode()
    # The session is still open: the customer pays again, by card this time.
    assert browser.get(f"/checkout/{token}").status_code == 200
    again = _pay_by(browser, token, "method", method)
    assert again["Location"] == f"/checkout/{token}/done"
    assert PaymentPlan.objects.get().status == "active"
    assert "clean" in check_ledger()


def test_without_manual_collection_a_method_is_still_required(
    browser, merchant_with_key
):
    token = _signed_in(browser, merchant_with_key)

    answer = _pay_by(browser, token, "bank_transfer", "")

    assert answer.status_code == 422
    assert "Choose a card or bank account" in text(answer)
    assert not DepositAttempt.objects.exists()
    assert "Nothing: I will pay each installment" not in text(answer)


def test_with_manual_collection_the_plan_completes_without_a_method(browser, db):
    owner = make_merchant_with_key(manual_collection=True)
    token = _signed_in(browser, owner)
    page = browser.get(f"/checkout/{token}")
    assert "Nothing: I will pay each installment" in text(page)

    answer = _pay_by(browser, token, "bank_transfer", "")

    assert answer.status_code == 303
    attempt = _attempt()
    assert attempt.payment_method is None
    sandbox_offline_complete(reference=attempt.reference)
    plan = PaymentPlan.objects.get()
    assert plan.status == "active" and plan.collection == "manual"
    assert CheckoutSession.objects.get(token=token).status == "completed"
    assert "clean" in check_ledger()


def test_with_manual_collection_a_card_deposit_still_needs_the_card(browser, db):
    owner = make_merchant_with_key(manual_collection=True)
    token = _signed_in(browser, owner)

    answer = _pay_by(browser, token, "method", "")

    assert answer.status_code == 422
    assert not DepositAttempt.objects.exists()


def test_the_sandbox_endpoints_complete_and_expire_a_transfer_deposit_by_its_id(
    browser, merchant_with_key
):
    """`POST /api/v1/sandbox/payments/{id}/complete` and `.../expire` reach a
    deposit's `pay_...` id as they reach an early payment's; another merchant
    gets a 404, another amount a 422 that changes nothing."""
    api = APIClient()
    headers = merchant_with_key.headers
    token = _signed_in(browser, merchant_with_key)
    method = add_card_on_page(browser, token)
    _pay_by(browser, token, "bank_transfer", method)
    attempt = _attempt()
    path = f"/api/v1/sandbox/payments/{attempt.public_id}"
    stranger = make_merchant_with_key()

    assert api.post(f"{path}/complete", **stranger.headers).status_code == 404
    wrong = api.post(
        f"{path}/complete", {"amount": attempt.amount - 1}, format="json", **headers
    )
    assert wrong.status_code == 422
    assert _attempt().status == "processing"
    done = api.post(f"{path}/complete", **headers)

    assert done.status_code == 200, done.content
    payment = done.json()["data"]["payment"]
    assert (payment["id"], payment["kind"], payment["status"]) == (
        attempt.public_id,
        "deposit",
        "succeeded",
    )
    assert payment["transfer"]["account_number"] == attempt.account_number
    assert _attempt().plan.status == PaymentPlan.Status.ACTIVE
    assert api.post(f"{path}/expire", **headers).status_code == 409
    check_ledger()


def test_the_sandbox_expires_a_transfer_deposit_at_once(browser, merchant_with_key):
    token = _signed_in(browser, merchant_with_key)
    method = add_card_on_page(browser, token)
    _pay_by(browser, token, "ussd", method, ussd_bank="737")
    attempt = _attempt()

    ended = APIClient().post(
        f"/api/v1/sandbox/payments/{attempt.public_id}/expire",
        **merchant_with_key.headers,
    )

    assert ended.status_code == 200, ended.content
    assert ended.json()["data"]["payment"]["status"] == "expired"
    assert (_attempt().status, _attempt().failure_reason) == ("failed", "expired")
    assert [e["reason"] for e in _events("payment.failed")] == ["expired"]
