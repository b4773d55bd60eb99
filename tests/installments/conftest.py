"""Plans made the way customers make them: through checkout completion."""

import json
from dataclasses import dataclass
from io import StringIO

import pytest
from django.core import mail
from django.core.management import call_command
from rest_framework.test import APIClient

from installments.collection import PassSummary, collect_due
from installments.notifications.models import Message
from installments.plans.models import PaymentPlan
from payments.gateway import tasks as gateway_tasks
from payments.models import SandboxTransaction
from webhooks.models import Event

from ..checkout.conftest import Shopper, add_card, complete, open_session, register
from ..conftest import MerchantWithKey, make_merchant_with_key


@dataclass
class PlanSetup:
    owner: MerchantWithKey
    shopper: Shopper
    plan: PaymentPlan

    @property
    def url(self) -> str:
        return f"/api/v1/payment-plans/{self.plan.public_id}"


def make_active_plan(owner=None, email="ada@mail.example.com", **session) -> PlanSetup:
    owner = owner or make_merchant_with_key()
    shopper = register(email)
    # A plan made with a test key is on the test side: its card is a test one.
    card = add_card(shopper, livemode=not owner.api_key.startswith("service_test_sk_"))
    token = open_session(owner, **session)
    response = complete(shopper, token, card)
    assert response.status_code == 201, response.content
    plan = PaymentPlan.objects.get(public_id=response.json()["data"]["id"])
    agreement_emails_set_aside()
    return PlanSetup(owner=owner, shopper=shopper, plan=plan)


def agreement_emails_set_aside() -> None:
    """The agreement e-mail a checkout records (DESIGN 18) goes by a task on
    its commit: the plans made here leave it out (its row, and the e-mail
    itself where a committed test already sent it), so the tests of the other
    messages (which read and count them) see theirs alone.
    tests/checkout/test_agreement_record.py follows the agreement e-mail."""
    rows = Message.objects.filter(kind=Message.Kind.AGREEMENT)
    titles = set(rows.values_list("title", flat=True))
    rows.delete()
    if hasattr(mail, "outbox"):
        mail.outbox[:] = [sent for sent in mail.outbox if sent.subject not in titles]


@pytest.fixture
def plan_active(db) -> PlanSetup:
    return make_active_plan()


# --- the collection engine --------------------------------------------------


def collect(on_date=None, **options) -> PassSummary:
    """One collection pass as `python manage.py collect_installments [--date ...]`
    runs it (due by now, or by the end of `on_date`); the summary it returns
    (the command prints its `line()`)."""
    return collect_due(on_date=on_date, **options)


def check_ledger() -> str:
    """`python manage.py check_ledger`, which raises (exit 1) on any breach."""
    out = StringIO()
    call_command("check_ledger", stdout=out)
    return out.getvalue()


def installments_of(plan) -> list:
    return list(plan.installments.order_by("sequence"))


def charges_for(installment):
    """Charges the sandbox was asked to make for this installment (every
    attempt and method)."""
    return SandboxTransaction.objects.filter(
        kind=SandboxTransaction.Kind.AUTHORIZATION_CHARGE,
        reference__startswith=f"{installment.public_id}_a",
    ).order_by("id")


# --- refunds and cancellation (DESIGN section 14) -----------------------------


def refund(setup: PlanSetup, amount: int, reason: str = "Returned", key=None):
    """POST .../refunds as the plan's merchant (API key)."""
    headers = dict(setup.owner.headers)
    if key is not None:
        headers["HTTP_IDEMPOTENCY_KEY"] = str(key)
    return APIClient().post(
        f"{setup.url}/refunds",
        {"amount": amount, "reason": reason},
        format="json",
        **headers,
    )


def cancel(setup: PlanSetup, reason: str = "Order cancelled"):
    return APIClient().post(
        f"{setup.url}/cancel", {"reason": reason}, format="json", **setup.owner.headers
    )


def sandbox_refunds_settle() -> int:
    """The sandbox's every-minute settlement pass: pending refunds processed,
    each announced to the refund handlers."""
    return gateway_tasks.sandbox_refunds_settle()


def event_data(merchant, event_type: str) -> list[dict]:
    """The `data` of each event of this type sent to the merchant, oldest first."""
    return [
        json.loads(event.body)["data"]
        for event in Event.objects.filter(
            merchant=merchant, event_type=event_type
        ).order_by("id")
    ]
