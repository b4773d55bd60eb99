"""Fixtures of the payments tests: customers signed in, and helpers that add
payment methods through the public endpoints with the sandbox processor."""

import json
from dataclasses import dataclass
from urllib.parse import parse_qs, urlsplit

import pytest
import responses
from django.core.cache import cache
from django.db import connection
from rest_framework.test import APIClient

from config.api.ids import random_token
from payments.gateway import hooks as gateway_hooks
from payments.gateway.hooks import register_refund_handler, unregister_refund_handler
from payments.gateway.processors import get_processor
from payments.gateway.services.inbound import signature_for
from payments.ledger import hooks as ledger_hooks
from payments.ledger.services import collection_post
from payments.methods import hooks as method_hooks
from payments.methods.hooks import (
    register_revocation_handler,
    unregister_revocation_handler,
)
from payments.methods.models import PaymentMethod
from payments.payouts.services import payout_account_set

from ..conftest import customer_jwt, make_merchant_with_key
from ..factories import CustomerFactory
from .paystack import BANKS, BASE

CALLBACK_URL = "https://shop.example.com/cards/done"
CARD_OK = "4084084084084081"
CARD_POOR = "4084080000000409"
CARD_DECLINED = "4000000000000002"
CARD_REFUNDS_FAIL = "4084080000005408"  # charges succeed, their refunds fail
ACCESS_BANK = "044"


def postgres_only(test):
    """Concurrency tests: real threads on PostgreSQL. SQLite serializes every
    writer, so there is no race there to test."""
    skip = pytest.mark.skipif(
        connection.vendor != "postgresql",
        reason="needs PostgreSQL (real concurrent transactions)",
    )
    return pytest.mark.postgres(skip(test))


@dataclass
class SignedIn:
    """A customer and an API client carrying their JWT."""

    customer: object
    client: APIClient

    @property
    def id(self) -> str:
        return self.customer.public_id

    def get(self, path, **kwargs):
        return self.client.get(path, **kwargs)

    def post(self, path, body=None, **kwargs):
        return self.client.post(path, body or {}, format="json", **kwargs)

    def put(self, path, **kwargs):
        return self.client.put(path, **kwargs)

    def delete(self, path, **kwargs):
        return self.client.delete(path, **kwargs)

    def methods(self) -> list[dict]:
        response = self.get(f"/api/v1/payment-methods/customers/{self.id}")
        assert response.status_code == 200, response.content
        return response.json()["data"]


def sign_in(customer) -> SignedIn:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {customer_jwt(customer)}")
    return SignedIn(customer=customer, client=client)


@pytest.fixture
def fresh_cache(db):
    # The bank list is cached for an hour; each test starts without it.
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def alice(fresh_cache) -> SignedIn:
    return sign_in(CustomerFactory(email="alice@mail.example.com"))


@pytest.fixture
def bob(fresh_cache) -> SignedIn:
    return sign_in(CustomerFactory(email="bob@mail.example.com"))


def initialize_card(
    who: SignedIn, *, is_default=False, callback_url=CALLBACK_URL, livemode=True
):
    response = who.post(
        "/api/v1/payment-methods/initialize-card",
        {
            "customer_id": who.id,
            "callback_url": callback_url,
            "is_default": is_default,
            "livemode": livemode,
        },
    )
    assert response.status_code == 200, response.content
    return response.json()


def submit_card_form(client, authorization_url: str, card_number: str):
    """The customer types the card on the sandbox page; returns the reply."""
    return client.post(urlsplit(authorization_url).path, {"card_number": card_number})


def reference_from_redirect(response) -> str:
    assert response.status_code == 302, response.content
    return parse_qs(urlsplit(response["Location"]).query)["reference"][0]


def verify_card(who: SignedIn, reference: str, **extra):
    return who.post(
        "/api/v1/payment-methods/verify-card",
        {"customer_id": who.id, "reference": reference, **extra},
    )


def add_card(
    who: SignedIn, card_number=CARD_OK, *, is_default=False, livemode=True
) -> dict:
    """The whole redirect flow; returns the saved payment method (a test one,
    for test checkouts, with `livemode=False`)."""
    started = initialize_card(who, is_default=is_default, livemode=livemode)
    redirect = submit_card_form(APIClient(), started["authorization_url"], card_number)
    response = verify_card(who, reference_from_redirect(redirect))
    assert response.status_code == 200, response.content
    return response.json()["data"]


def initiate_mandate(
    who: SignedIn, account_number: str, *, bank_code=ACCESS_BANK, **kw
):
    return who.post(
        f"/api/v1/payment-methods/customers/{who.id}/initiate-bank-mandate",
        {
            "bank_code": bank_code,
            "account_number": account_number,
            "terms_accepted": True,
            **kw,
        },
    )


def mandate_step(who: SignedIn, step: str, reference: str, **fields):
    return who.post(
        f"/api/v1/payment-methods/bank-mandate/{step}",
        {"customer_id": who.id, "reference": reference, **fields},
    )


def add_bank(who: SignedIn, account_number="0123456780", *, is_default=False) -> dict:
    """An account ending in 0: initiate, then the OTP."""
    started = initiate_mandate(who, account_number, is_default=is_default)
    assert started.status_code == 200, started.content
    done = mandate_step(who, "submit-otp", started.json()["reference"], otp="123456")
    assert done.status_code == 200, done.content
    return done.json()["data"]


def signed_post(client, path: str, payload, *, signature: str | None = "auto"):
    body = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    headers = {}
    if signature == "auto":
        headers["HTTP_X_PAYSTACK_SIGNATURE"] = signature_for(body)
    elif signature is not None:
        headers["HTTP_X_PAYSTACK_SIGNATURE"] = signature
    return client.post(path, body, content_type="application/json", **headers)


@pytest.fixture(autouse=True)
def payments_alone():
    """Payments' own contracts, without what higher apps register in their
    ready() (installments' ledger checks would refuse the synthetic collections
    these tests post, and its handlers would claim their references); the
    registrations are tested in tests/installments."""
    saved = (
        list(method_hooks._revocation_handlers),
        list(gateway_hooks._charge_confirmation_handlers),
        dict(ledger_hooks._ledger_checks),
        list(gateway_hooks._refund_handlers),
    )
    method_hooks._revocation_handlers.clear()
    gateway_hooks._charge_confirmation_handlers.clear()
    ledger_hooks._ledger_checks.clear()
    # Payments' own refund handler (verification charges) stays.
    gateway_hooks._refund_handlers[:] = [
        handler
        for handler in saved[3]
        if getattr(handler, "__module__", "").startswith("payments.")
    ]
    yield
    method_hooks._revocation_handlers[:] = saved[0]
    gateway_hooks._charge_confirmation_handlers[:] = saved[1]
    ledger_hooks._ledger_checks.clear()
    ledger_hooks._ledger_checks.update(saved[2])
    gateway_hooks._refund_handlers[:] = saved[3]


@pytest.fixture
def revocations():
    """Revocations the registered handler saw (stands in for installments)."""
    seen = []
    register_revocation_handler(seen.append)
    yield seen
    unregister_revocation_handler(seen.append)


# Wallets and payouts ---------------------------------------------------------

GTBANK = "058"
PAYOUT_ACCOUNT_OK = "0123456780"
PAYOUT_ACCOUNT_FAILS = "0123456789"  # sandbox: transfers to accounts ending 9 fail


def credit_wallet(merchant, amount: int, reference: str | None = None) -> int:
    """A collected installment (posted as the auto-debit engine posts it: under
    the installment's id, naming the charge's `reference`, `inst_<id>_a<n>`);
    returns the net the wallet received (97.5%)."""
    reference = reference or f"inst_{random_token(96)}_a1"
    installment_id = reference.rsplit("_a", 1)[0]
    txn = collection_post(
        merchant=merchant,
        customer=CustomerFactory(),
        amount=amount,
        reference=installment_id,
        processor_reference=reference,
        resource_type="installment",
        resource_id=installment_id,
        description="Installment collected",
    )
    return txn.net


def set_payout_account(merchant, account_number=PAYOUT_ACCOUNT_OK, bank_code=GTBANK):
    return payout_account_set(
        merchant=merchant, bank_code=bank_code, account_number=account_number
    )


@pytest.fixture
def payee(fresh_cache):
    """An active merchant with a sandbox payout account (GTBank, ending 0)."""
    payee = make_merchant_with_key()
    set_payout_account(payee.merchant)
    payee.merchant.refresh_from_db()
    return payee


# Refunds of collections --------------------------------------------------------

COLLECTED = 250_000


def collect(who: SignedIn, card_number=CARD_OK, reference="inst_1_a1") -> str:
    """A saved card and one collection of COLLECTED kobo charged on it (as the
    engine charges); returns the charge's reference."""
    card = add_card(who, card_number)
    method = PaymentMethod.objects.get(public_id=card["id"])
    result = get_processor().charge_authorization(
        email=method.customer.email,
        amount=COLLECTED,
        authorization_code=method.authorization_code,
        reference=reference,
    )
    assert result.succeeded
    return reference


@pytest.fixture
def collection(alice) -> str:
    return collect(alice)


@pytest.fixture
def seen():
    """The refund outcomes a registered refund handler saw (it stands in for
    installments, whose refund parts have references `rf_...`)."""
    outcomes = []

    def plan_refunds(outcome) -> bool:
        outcomes.append(outcome)
        return outcome.reference.startswith("rf_")

    register_refund_handler(plan_refunds)
    yield outcomes
    unregister_refund_handler(plan_refunds)


# Paystack ------------------------------------------------------------------------


@pytest.fixture
def paystack(settings):
    """PROCESSOR=paystack against `responses` (its bank list answered), no
    sleeping between retries; the fake to add answers to. (A module may define
    its own `paystack` for a different set-up.)"""
    settings.PROCESSOR = "paystack"
    settings.PAYSTACK_BASE_URL = BASE
    settings.PAYSTACK_SECRET_KEY = "sk_test_flows"
    processor = get_processor()
    real_sleep = processor._sleep
    processor._sleep = lambda seconds: None
    with responses.RequestsMock(assert_all_requests_are_fired=False) as fake:
        fake.add("GET", f"{BASE}/bank", json=BANKS)
        yield fake
    processor._sleep = real_sleep
