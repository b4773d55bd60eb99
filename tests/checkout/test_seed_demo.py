"""`manage.py seed_demo`, the demo `make run` seeds (DESIGN section 16): the
demo merchant's last month played through the real services on the sandbox,
once; the credentials printed last and boxed, with a way to reset them.

The dashboard pages this data fills are checked in a browser by
tests/browser/test_demo_dashboard.py.
"""

import re
from collections import Counter
from datetime import timedelta
from io import StringIO

import pytest
from django.core import mail
from django.core.management import call_command
from django.utils import timezone
from rest_framework.test import APIClient

from checkout.models import CheckoutSession
from installments.plans.models import Installment, PaymentPlan
from installments.refunds.models import Refund
from merchants.demo import DEMO_MERCHANT_EMAIL
from merchants.models import ApiKey, Merchant
from merchants.team.selectors import owner_of
from payments.ledger.models import LedgerTransaction
from payments.payouts.models import Payout
from webhooks.models import DeliveryAttempt, Event

from ..installments.conftest import check_ledger

pytestmark = pytest.mark.django_db(transaction=True)

TABLES = (
    Merchant,
    ApiKey,
    CheckoutSession,
    PaymentPlan,
    Installment,
    Refund,
    Payout,
    LedgerTransaction,
    Event,
    DeliveryAttempt,
)


class Terminal(StringIO):
    """Output that says it is a terminal, so the progress line is drawn."""

    def isatty(self) -> bool:
        return True


def seed(*args, stdout=None) -> str:
    out = stdout or StringIO()
    call_command("seed_demo", *args, stdout=out)
    return out.getvalue()


def counts() -> dict:
    return {model.__name__: model.objects.count() for model in TABLES}


def key_shown_in(output: str) -> str:
    found = re.search(r"\|   test key: (\S+) +\|", output)
    assert found, output
    return found.group(1)


def password_in(output: str) -> str:
    found = re.search(r"\|   password: (\S+) +\|", output)
    assert found, output
    return found.group(1)


def test_a_month_of_every_state_through_the_real_services():
    output = seed(stdout=Terminal())

    merchant = Merchant.objects.get(email=DEMO_MERCHANT_EMAIL, livemode=True)
    assert merchant.status == Merchant.Status.ACTIVE and merchant.api_access_enabled
    plans = PaymentPlan.objects.filter(merchant=merchant)
    assert Counter(plans.values_list("status", flat=True)) == {
        "active": 6,
        "completed": 1,
        "defaulted": 1,
        "cancelled": 1,
    }
    installments = Counter(
        Installment.objects.filter(plan__merchant=merchant).values_list(
            "status", flat=True
        )
    )
    assert installments["paid"] >= 5
    assert installments["defaulted"] == 1
    assert installments["failed"] + installments["action_required"] >= 1
    assert Refund.objects.filter(merchant=merchant, status="processed").count() == 2
    assert Payout.objects.filter(merchant=merchant, status="paid").count() == 2
    assert merchant.payment_links.count() == 1

    # A month of history: made over the last 30 days, none of it in the future.
    now = timezone.now()
    made = plans.values_list("created_at", flat=True)
    assert min(made) < now - timedelta(days=29) and max(made) < now
    assert Merchant.objects.get(pk=merchant.pk).created_at <= min(made)

    # Webhooks went to the local receiver only: delivered, and some refused
    # once (503) and delivered on a retry.
    attempts = DeliveryAttempt.objects.filter(merchant=merchant)
    assert {a.url.split("/")[2].split(":")[0] for a in attempts} == {"127.0.0.1"}
    codes = Counter(attempts.values_list("status_code", flat=True))
    assert codes[200] >= 30 and codes[503] >= 1

    assert "clean" in check_ledger()
    # The e-mails of the month were kept, not printed over the credentials.
    assert len(mail.outbox) >= 10
    assert "Subject:" not in output
    assert "30/30 days" in output  # the progress line, on a terminal
    lines = [line for line in output.splitlines() if line.strip()]
    assert re.fullmatch(r"\+-+\+", lines[-1]) and re.fullmatch(r"\+-+\+", lines[-7])
    assert "Lost the password? `make demo-password`" in lines[-2]
    assert owner_of(merchant).check_password(password_in(output))
    # And a test key to try the API with (docs/test-mode.md): it opens the
    # account's test side, its two test checkouts and none of the live month.
    key = key_shown_in(output)
    assert key.startswith("service_test_sk_")
    answer = APIClient().get(
        f"/api/v1/merchant/{merchant.public_id}/api-key/history",
        HTTP_AUTHORIZATION=f"Bearer {key}",
    )
    assert answer.status_code == 200
    plans = APIClient().get("/api/v1/payment-plans", HTTP_AUTHORIZATION=f"Bearer {key}")
    assert plans.json()["total"] == 2
    assert {plan["order_reference"] for plan in plans.json()["data"]} == {
        "TEST-2001",
        "TEST-2002",
    }
    assert {plan["livemode"] for plan in plans.json()["data"]} == {False}


def test_a_second_run_adds_nothing():
    seed()
    before = counts()

    output = seed()

    assert counts() == before
    assert "Demo data already there: 9 plans" in output
    assert "(printed when it was created)" in output
    assert "Staff user" not in output
    assert "test key" not in output  # shown once, by the run that made it
    assert "clean" in check_ledger()


def test_the_demo_password_can_be_reset():
    first = password_in(seed())

    output = seed("--reset-password")

    new = password_in(output)
    merchant = Merchant.objects.get(email=DEMO_MERCHANT_EMAIL, livemode=True)
    assert new != first
    owner = owner_of(merchant)
    assert owner.check_password(new) and not owner.check_password(first)
    assert PaymentPlan.objects.filter(merchant=merchant).count() == 9


def test_without_the_sandbox_only_the_accounts_are_made(settings):
    settings.PROCESSOR = "paystack"

    output = seed()

    assert "sandbox processor only" in output
    assert Merchant.objects.filter(email=DEMO_MERCHANT_EMAIL).exists()
    assert PaymentPlan.objects.count() == 0
    assert password_in(output)
