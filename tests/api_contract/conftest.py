"""Fixtures of the API contract tests: one real account of every kind, with the
credentials each security scheme of the OpenAPI schema stands for.

`world` is what the schemathesis run and the authorization matrix act as: a merchant
with an API key and a merchant JWT, a customer with a customer JWT and two saved
payment methods, an event to replay, a payment link, an active payment plan (its
deposit paid, so the wallet has a collection; its installments can be paid early),
a payout of that deposit (its settlement report has a line), a dispute of the
deposit of a second plan (open, so the first plan's refunds stay possible),
an open checkout session, a processor event nested thousands of levels deep (for
the signed inbound endpoints), and a second merchant and customer with their own
credentials (the "other party" of the matrix).
"""

import base64
import json
import os
import socket
from dataclasses import dataclass, field
from datetime import timedelta

import pytest
from rest_framework_simplejwt.tokens import AccessToken

from checkout import services as checkout_services
from checkout.models import PaymentLink
from config.api.auth import ROLE_CUSTOMER, ROLE_MERCHANT
from config.api.ids import random_token
from installments.deposits.consent import Consent
from installments.disputes.models import Dispute
from installments.early.models import EarlyPayment
from installments.early.sandbox import early_payment_sandbox_expire
from installments.early.services import plan_pay_offline
from installments.plans.models import PaymentPlan
from installments.plans.rules import working_day_on_or_after
from merchants import services as merchant_services
from merchants.models import Merchant
from payments.models import Customer, PaymentMethod, Payout
from payments.payouts.services.payouts import payout_create
from webhooks import services as webhook_services
from webhooks.models import Event

from ..conftest import customer_jwt, make_merchant_with_key, merchant_jwt
from ..factories import CustomerFactory
from ..installments.disputes import deposit_reference, dispute_open
from ..payments.conftest import add_bank, add_card, sign_in

# Examples per operation: a short run in `make test`, 100 in .ci/run.
FUZZ_EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "15"))
# Where every outbound webhook of the run goes: a closed local port, so nothing
# generated (endpoint 21 takes any URL) ever leaves the machine.
CLOSED_LOCAL_PORT = ("127.0.0.1", 9)
# Python's json gives up near 1,000 levels; the API must answer such a body with a
# 4xx, never a 500, and for a signed processor event record it whole.
DEEP_NESTING = 5000


def deeply_nested_event(levels: int = DEEP_NESTING) -> bytes:
    """A processor event whose `data` is nested `levels` objects deep (raw bytes:
    json.dumps itself cannot write it)."""
    return (
        b'{"event": "charge.success", "data": '
        + b'{"a": ' * levels
        + b"1"
        + b"}" * levels
        + b"}"
    )


@dataclass
class Party:
    merchant: Merchant
    api_key: str
    merchant_jwt: str
    customer: Customer
    customer_jwt: str

    def token(self, kind: str) -> str:
        return {
            "api_key": self.api_key,
            "merchant_jwt": self.merchant_jwt,
            "customer_jwt": self.customer_jwt,
        }[kind]


@dataclass
class World:
    me: Party
    other: Party
    card: PaymentMethod
    bank: PaymentMethod
    event: Event
    other_card: PaymentMethod
    other_event: Event
    link: PaymentLink
    plan: PaymentPlan
    payout: Payout
    # A bank transfer of `plan` that expired (nothing paid, nothing held).
    payment: EarlyPayment
    # An open dispute of the deposit of another plan of `me`.
    dispute: Dispute
    deep_inbound_body: bytes = field(default_factory=deeply_nested_event)
    # Operations (labels) that were already sent `deep_inbound_body`.
    deep_inbound_sent: set[str] = field(default_factory=set)

    def open_session(self) -> str:
        """A fresh open checkout session of `me`'s merchant: its token."""
        return open_session(self.me.merchant)

    def unpaid_installment_id(self) -> str:
        """An installment of `plan` still to pay (any, once none is left)."""
        installments = self.plan.installments.order_by("sequence")
        unpaid = installments.filter(status__in=("scheduled", "failed")).first()
        return (unpaid or installments.first()).public_id

    def reschedulable_date(self) -> str:
        """The first working day after the due date of `unpaid_installment_id`."""
        installment = self.plan.installments.get(public_id=self.unpaid_installment_id())
        return working_day_on_or_after(
            installment.due_date + timedelta(days=1)
        ).isoformat()

    def fresh_reschedule(self) -> tuple[str, str, str]:
        """(plan id, its first installment's id, a date it may move to) of a new
        plan of `me`: a move the customer's allowance of one still takes."""
        plan = active_plan(self.me.merchant, self.card)
        first = plan.installments.order_by("sequence").first()
        day = working_day_on_or_after(first.due_date + timedelta(days=1))
        return plan.public_id, first.public_id, day.isoformat()


def make_party(**merchant_fields) -> Party:
    with_key = make_merchant_with_key(rate_plan="production", **merchant_fields)
    customer = CustomerFactory()
    return Party(
        merchant=with_key.merchant,
        api_key=with_key.api_key,
        merchant_jwt=merchant_jwt(with_key.merchant),
        customer=customer,
        customer_jwt=customer_jwt(customer),
    )


def _method(customer, data: dict) -> PaymentMethod:
    return PaymentMethod.objects.get(customer=customer, public_id=data["id"])


def open_session(merchant) -> str:
    return checkout_services.session_create(
        merchant=merchant,
        amount=500_000,
        currency="NGN",
        title="Contract test order",
        order_reference=f"contract-{random_token(64)}",
    ).session.token


def active_plan(merchant, card: PaymentMethod) -> PaymentPlan:
    """A plan made the way customers make one: its session completed on `card`."""
    return checkout_services.session_complete(
        token=open_session(merchant),
        customer=card.customer,
        schedule_type="monthly",
        installment_count=3,
        payment_method_id=card.public_id,
        consent=Consent(ip="203.0.113.9", user_agent="contract tests"),
    )


def expired_transfer(plan: PaymentPlan) -> EarlyPayment:
    """A bank transfer payment of the plan's payoff that ran out: the plan is
    as it was, the payment readable (and refused by the sandbox's calls)."""
    payment = plan_pay_offline(
        customer=plan.customer,
        plan=plan,
        installment_id=None,
        channel="bank_transfer",
    )
    return early_payment_sandbox_expire(payment)


def paid_out(merchant) -> Payout:
    """A payout of what the merchant's wallet holds (the plan's deposit), so its
    settlement report has a line."""
    merchant.payout_bank_code = "058"
    merchant.payout_account_number = "0123456780"
    merchant.payout_account_name = "CONTRACT SHOP"
    merchant.save(
        update_fields=[
            "payout_bank_code",
            "payout_account_number",
            "payout_account_name",
        ]
    )
    payout = payout_create(merchant=merchant)
    assert payout is not None, "the world's wallet is below the minimum payout"
    return payout


@pytest.fixture
def offline_webhooks(settings, monkeypatch):
    """Outbound webhooks connect to a closed local port whatever their URL says."""
    settings.WEBHOOK_ALLOW_PRIVATE_NETWORKS = True
    settings.WEBHOOK_ALLOW_HTTP = True
    monkeypatch.setattr(
        "webhooks.transport._vetted_addresses",
        lambda host, port: [
            (socket.AF_INET, socket.SOCK_STREAM, 6, "", CLOSED_LOCAL_PORT)
        ],
    )


@pytest.fixture
def world(db, settings, offline_webhooks) -> World:
    # The run sends thousands of requests as one merchant within a minute.
    settings.RATE_LIMITS = {"sandbox": 1_000_000, "production": 1_000_000}
    settings.LOGIN_REQUESTS_PER_IP_PER_MINUTE = 1_000_000
    settings.SIGNUP_RATE_LIMIT = settings.SIGNUP_RATE_LIMIT_PER_ADDRESS = "1000000/day"
    hook = {"webhook_url": "https://hooks.shop.example/in", "webhook_secret": "s" * 24}
    me, other = make_party(**hook), make_party(**hook)
    card = _method(me.customer, add_card(sign_in(me.customer)))
    bank = _method(me.customer, add_bank(sign_in(me.customer)))
    other_card = _method(other.customer, add_card(sign_in(other.customer)))
    event = webhook_services.emit_event(
        merchant=me.merchant, event_type="goods.release", data={"n": 1}
    )
    other_event = webhook_services.emit_event(
        merchant=other.merchant, event_type="goods.release", data={"n": 2}
    )
    link = checkout_services.payment_link_create(
        merchant=me.merchant, title="Contract chair", amount=4_500_000, currency="NGN"
    )
    plan = active_plan(me.merchant, card)
    return World(
        payout=paid_out(me.merchant),
        me=me,
        other=other,
        card=card,
        bank=bank,
        event=event,
        other_card=other_card,
        other_event=other_event,
        link=link,
        plan=plan,
        payment=expired_transfer(plan),
        dispute=dispute_open(deposit_reference(active_plan(me.merchant, card))),
    )


# --- credentials that must be refused ----------------------------------------------


def expired_jwt(role: str, public_id: str) -> str:
    token = AccessToken()
    token["role"] = role
    token["sub"] = public_id
    token.set_exp(lifetime=-timedelta(minutes=1))
    return str(token)


def alg_none_jwt(role: str, public_id: str) -> str:
    """A well-formed token with `alg: none` and no signature."""

    def part(value: dict) -> str:
        raw = json.dumps(value, separators=(",", ":")).encode()
        return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()

    valid = AccessToken()
    claims = {**valid.payload, "role": role, "sub": public_id}
    return f"{part({'alg': 'none', 'typ': 'JWT'})}.{part(claims)}."


def revoked_api_key(party: Party) -> str:
    """The party's current key after a rotation replaced it (party gets the new one)."""
    old = party.api_key
    _, party.api_key = merchant_services.api_key_rotate(merchant=party.merchant)
    return old


ROLE_OF_KIND = {"merchant_jwt": ROLE_MERCHANT, "customer_jwt": ROLE_CUSTOMER}
