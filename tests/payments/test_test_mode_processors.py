"""Test mode's money never reaches a real processor (DESIGN section 21,
docs/test-mode.md): with PROCESSOR=paystack, a merchant's test key drives a
checkout, a collection, a refund and a payout run through the sandbox, and
Paystack hears nothing; the Paystack adapter itself refuses to work while the
test side is entered."""

from datetime import datetime, time
from io import StringIO
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.core.management import call_command
from django.test import Client
from rest_framework.test import APIClient

from checkout.models import CheckoutSession
from config import sides
from installments.collection.engine import collect_due
from installments.plans.models import Installment, PaymentPlan
from installments.refunds.models import Refund
from payments.gateway.processors import get_processor
from payments.gateway.processors.sandbox.values import sandbox_banks
from payments.gateway.services import sandbox_refunds_settle
from payments.methods.services.saved_charges import saved_method_charge
from payments.models import BankMandate, PaymentMethod, Payout
from payments.payouts.services.payout_accounts import payout_account_set
from payments.payouts.services.payout_runs import payouts_run

from ..checkout.conftest import open_session
from ..checkout.hosted import add_card_on_page, register_on_page
from ..conftest import MerchantWithKey, make_merchant_with_key, with_test_key
from ..factories import CustomerFactory

pytestmark = pytest.mark.django_db

LAGOS = ZoneInfo("Africa/Lagos")
AMOUNT = 1_000_000  # ₦10,000: a deposit of 300,000 kobo, three installments


@pytest.fixture
def test_key(db) -> MerchantWithKey:
    """An approved merchant's test key (it acts as the account's test side)."""
    return with_test_key(make_merchant_with_key())


def pay_on_page(browser, token, method_id):
    return browser.post(
        f"/checkout/{token}/pay",
        {
            "schedule_type": "monthly",
            "installment_count": "3",
            "payment_method_id": method_id,
            "terms_accepted": "yes",
        },
    )


def ledger_report() -> str:
    out = StringIO()
    call_command("check_ledger", stdout=out)
    return out.getvalue()


def test_a_test_key_moves_money_only_through_the_sandbox_under_paystack(
    paystack, test_key, committed
):
    # Checkout: a session opened with the test key, paid on the hosted pages
    # with a card saved through the sandbox's card page.
    token = open_session(test_key, amount=AMOUNT)
    session = CheckoutSession.objects.get(token=token)
    assert session.merchant.livemode is False
    browser = Client()
    with committed():
        register_on_page(browser, token)
        method_id = add_card_on_page(browser, token)
        paid = pay_on_page(browser, token, method_id)
    assert paid.status_code == 303, paid.content
    plan = PaymentPlan.objects.get()
    assert (plan.merchant_id, plan.status) == (session.merchant_id, "active")
    method = PaymentMethod.objects.get(public_id=method_id)
    assert (method.livemode, method.processor) == (False, "sandbox")

    # Collection: the engine's pass on the first installment's due date.
    first = plan.installments.order_by("sequence").first()
    due = datetime.combine(first.due_date, time(9), tzinfo=LAGOS)
    with time_machine.travel(due, tick=False), committed():
        collect_due(on_date=first.due_date, plan_pk=plan.pk)
    first.refresh_from_db()
    assert first.status == Installment.Status.PAID

    # Refund, through the API with the test key, settled by the sandbox's pass.
    with committed():
        refunded = APIClient().post(
            f"/api/v1/payment-plans/{plan.public_id}/refunds",
            {"amount": 50_000, "reason": "One item returned"},
            format="json",
            **test_key.headers,
        )
        sandbox_refunds_settle()
    assert refunded.status_code == 201, refunded.content
    assert Refund.objects.get().status == Refund.Status.PROCESSED

    # Payout run of the test side, to an account the sandbox resolves.
    test_side = session.merchant
    with committed():
        payout_account_set(
            merchant=test_side,
            bank_code=sandbox_banks()[0].code,
            account_number="0123456789",
        )
        run = payouts_run(merchant_ids=[test_side.public_id])
    [payout] = Payout.objects.filter(merchant=test_side)
    assert run.created == [payout.public_id]
    assert payout.processor == "sandbox"

    assert "clean" in ledger_report()
    assert len(paystack.calls) == 0


def test_the_paystack_adapter_refuses_while_the_test_side_is_entered(paystack):
    sides.enter_test_side()
    try:
        with pytest.raises(sides.TestSideRefused):
            get_processor().verify_transaction(reference="inst_1_a1")
        with pytest.raises(sides.TestSideRefused):
            get_processor().list_banks()
    finally:
        sides.leave_test_side()

    assert len(paystack.calls) == 0


def test_a_bank_account_added_from_a_test_checkout_is_a_test_method(
    paystack, test_key, committed
):
    # The bank list, the mandate's steps and its verification refund are all
    # the sandbox's, though PROCESSOR says paystack.
    token = open_session(test_key, amount=AMOUNT)
    here = f"/checkout/{token}"
    browser = Client()
    register_on_page(browser, token)
    form = browser.get(f"/account/methods/bank/?next={here}")
    assert form.status_code == 200
    with committed():
        step = browser.post(
            "/account/methods/bank/",
            {
                "bank_code": sandbox_banks()[0].code,
                "account_number": "0123456782",
                "terms_accepted": "on",
                "next": here,
            },
        )
        assert step.status_code == 303, step.content
        otp_step = browser.post(step["Location"], {"phone": "+2348012345678"})
        done = browser.post(otp_step["Location"], {"otp": "123456"})

    method = PaymentMethod.objects.get()
    assert done["Location"] == f"{here}?method={method.public_id}"
    assert (method.type, method.livemode, method.processor) == (
        "bank",
        False,
        "sandbox",
    )
    assert BankMandate.objects.get().livemode is False
    assert len(paystack.calls) == 0


def test_a_live_method_saved_on_the_sandbox_is_never_charged_once_paystack_is_live(
    paystack,
):
    # Charging it at the sandbox would mark a live plan paid with no money.
    method = PaymentMethod.objects.create(
        customer=CustomerFactory(),
        type=PaymentMethod.Type.CARD,
        label="Visa •••• 4081",
        processor="sandbox",
        authorization_code="AUTH_sandbox_live",
        authorization_code_hash="x",
        fingerprint="y",
    )

    outcome = saved_method_charge(method=method, amount=10_000, reference="inst_x_a1")

    assert (outcome.status, outcome.failure_reason) == ("failed", "processor_error")
    assert len(paystack.calls) == 0
