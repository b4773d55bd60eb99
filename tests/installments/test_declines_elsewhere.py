"""The one decline table (DESIGN section 15) outside the engine's pass: the
deposit and early payments class declines and retire methods with it; an
installment waiting for a method (`action_required`) is unpaid for early
payments, refunds and cancellation; merchants see it in the plan and on the
dashboard; the table itself and the claim's index."""

from datetime import timedelta

import pytest
from django.db import connection
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from installments.collection import claims
from installments.deposits.services import FAILURE_REASONS
from installments.plans.models import Installment
from payments.gateway.declines import (
    DEACTIVATE,
    DECLINES,
    EXPIRE,
    REASONS,
    decline_of,
)
from payments.gateway.processors import (
    FailureReason,
    TransactionResult,
    TransactionStatus,
)
from payments.gateway.processors.reasons import failure_reason_from_text
from payments.gateway.processors.sandbox.values import CARD_EXPIRES_THIS_MONTH
from payments.methods.services.declines import declined_method_retire
from payments.models import PaymentMethod, SandboxTransaction
from webhooks.models import Event

from ..checkout.conftest import (
    CARD_OK,
    CARD_POOR,
    add_card,
    complete,
    open_session,
    register,
)
from ..conftest import make_merchant_with_key
from ..dashboards import sign_in as merchant_sign_in
from .conftest import cancel, check_ledger, installments_of, refund
from .declines import (
    BOUGHT_ON,
    add_card_later,
    bought_with,
    charges_with,
    method_of,
    on,
    wait_for_method,
)
from .failed_collections import failures

pytestmark = pytest.mark.django_db

APRIL = BOUGHT_ON + timedelta(days=10)  # the expiring card has expired


# --- the table ------------------------------------------------------------------


def test_the_table_classes_every_reason_as_design_section_15_says():
    soft = {reason for reason, row in DECLINES.items() if row.retryable}
    hard = {reason for reason, row in DECLINES.items() if not row.retryable}
    # `expired`: a bank transfer or USSD payment not completed in time;
    # `not_paid`: a manual plan's installment its customer has not paid yet
    # (DESIGN 17).
    assert soft == {
        "insufficient_funds",
        "processor_error",
        "do_not_honor",
        "expired",
        "not_paid",
    }
    assert hard == {
        "card_expired",
        "authorization_revoked",
        "invalid_account",
        "no_payment_method",
    }
    assert FAILURE_REASONS == REASONS == soft | hard
    # What each hard decline does to the method it came from.
    assert {r: DECLINES[r].method_effect for r in hard} == {
        "card_expired": EXPIRE,
        "authorization_revoked": DEACTIVATE,
        "invalid_account": DEACTIVATE,
        "no_payment_method": "",
    }


def test_a_generic_decline_a_timeout_and_anything_unknown_are_soft():
    assert decline_of(FailureReason.DECLINED).reason == "do_not_honor"
    assert decline_of("processor_timeout").reason == "processor_error"
    assert decline_of("something_new").reason == "do_not_honor"
    assert decline_of("").retryable
    every = [v for k, v in vars(FailureReason).items() if k.isupper()]
    assert all(decline_of(reason).reason in REASONS for reason in every)


def test_a_closed_bank_account_is_a_hard_decline_that_deactivates_the_method(
    plan_active,
):
    assert failure_reason_from_text("Invalid Account") == "invalid_account"
    assert failure_reason_from_text("Account has been closed") == "invalid_account"
    [method] = PaymentMethod.objects.filter(customer_id=plan_active.plan.customer_id)

    retired = declined_method_retire(
        method=method,
        result=TransactionResult(
            reference="inst_x_a1",
            status=TransactionStatus.FAILED,
            amount=1,
            failure_reason=FailureReason.INVALID_ACCOUNT,
        ),
    )

    method.refresh_from_db()
    assert retired and (method.status, method.is_active) == ("revoked", False)
    assert method.revocation_reason == "charge.account_invalid"


def test_a_soft_decline_leaves_the_method_as_it_is(plan_active):
    [method] = PaymentMethod.objects.filter(customer_id=plan_active.plan.customer_id)
    for reason in ("insufficient_funds", "do_not_honor", "processor_error"):
        result = TransactionResult(
            reference=f"inst_x_{reason}",
            status=TransactionStatus.FAILED,
            amount=1,
            failure_reason=reason,
        )
        assert not declined_method_retire(method=method, result=result)
    method.refresh_from_db()
    assert (method.status, method.is_default) == ("active", True)


# --- the deposit ----------------------------------------------------------------


def test_a_deposit_on_an_expired_card_is_a_hard_decline_with_retryable_false(db):
    with on(BOUGHT_ON, 12):
        owner = make_merchant_with_key()
        shopper = register("ada@mail.example.com")
        card = add_card(shopper, CARD_EXPIRES_THIS_MONTH)
    with on(APRIL, 12):
        shopper.sign_in_again()
        token = open_session(owner)

        response = complete(shopper, token, card)

        assert response.status_code == 402
        assert "the card has expired" in response.json()["error"]["message"]
        method = PaymentMethod.objects.get(public_id=card)
        assert (method.status, method.is_default) == ("expired", False)
        [failed] = failures_of(owner.merchant)
        assert (failed["reason"], failed["retryable"]) == ("card_expired", False)
        # The customer pays with another method, never the expired one again.
        again = complete(shopper, token, card)
        assert again.status_code == 404
        other = add_card(shopper, CARD_OK)
        assert complete(shopper, token, other).status_code == 201
    assert charges_with(method).count() == 1


def failures_of(merchant) -> list[dict]:
    return [
        event.data
        for event in Event.objects.filter(
            merchant=merchant, event_type="payment.failed"
        ).order_by("id")
    ]


# --- early payments -------------------------------------------------------------


def pay(setup, **body):
    setup.shopper.sign_in_again()
    return setup.shopper.post(f"{setup.url}/pay", body)


def test_paying_early_with_an_expired_card_retires_it_and_changes_nothing(db):
    setup = bought_with(CARD_OK, CARD_EXPIRES_THIS_MONTH)
    first = installments_of(setup.plan)[0]
    expired = method_of(setup, CARD_EXPIRES_THIS_MONTH)

    with on(APRIL, 12):
        response = pay(
            setup, installment_id=first.public_id, payment_method_id=expired.public_id
        )

    assert response.status_code == 402
    assert "the card has expired" in response.json()["error"]["message"]
    expired.refresh_from_db()
    assert expired.status == "expired"
    first.refresh_from_db()
    assert (first.status, first.attempts) == ("scheduled", 0)
    assert failures(setup.plan) == []  # an early payment's decline is no event
    assert charges_with(expired).count() == 1


def test_an_installment_waiting_for_a_method_can_be_paid_early(db, committed):
    setup = bought_with(CARD_EXPIRES_THIS_MONTH)
    first = wait_for_method(setup, committed)
    with on(first.due_date, 12):
        card = add_card_later(setup)

        response = pay(setup, installment_id=first.public_id, payment_method_id=card)

    assert response.status_code == 200, response.content
    first.refresh_from_db()
    assert (first.status, first.attempts) == ("paid", 2)
    assert first.processor_reference.startswith(f"{first.public_id}_p")
    assert "clean" in check_ledger()


def test_a_declined_early_payment_puts_a_waiting_installment_back_waiting(
    db, committed
):
    setup = bought_with(CARD_EXPIRES_THIS_MONTH)
    first = wait_for_method(setup, committed)
    waits_until = first.next_attempt_at
    with on(first.due_date, 12):
        card = add_card_later(setup, CARD_POOR)
        response = pay(setup, installment_id=first.public_id, payment_method_id=card)

    assert response.status_code == 402
    first.refresh_from_db()
    assert (first.status, first.attempts) == ("action_required", 1)
    assert first.next_attempt_at == waits_until


# --- unpaid for refunds and cancellation; shown to merchants -----------------------


def test_cancelling_a_plan_cancels_a_waiting_installment(db, committed):
    setup = bought_with(CARD_EXPIRES_THIS_MONTH)
    first = wait_for_method(setup, committed)

    with on(first.due_date, 12):
        response = cancel(setup)

    assert response.status_code == 200, response.content
    first.refresh_from_db()
    assert (first.status, first.next_attempt_at) == ("cancelled", None)


def test_a_refund_reduces_a_waiting_installment_like_any_unpaid_one(db, committed):
    setup = bought_with(CARD_EXPIRES_THIS_MONTH)
    first = wait_for_method(setup, committed)
    unpaid = sum(i.amount for i in installments_of(setup.plan))

    with on(first.due_date, 12):
        response = refund(setup, unpaid)

    assert response.status_code in (200, 201), response.content
    assert [i.status for i in installments_of(setup.plan)] == ["cancelled"] * 3


def test_merchants_see_action_required_in_the_plan_and_on_the_dashboard(db, committed):
    setup = bought_with(CARD_EXPIRES_THIS_MONTH)
    first = wait_for_method(setup, committed)

    with on(first.due_date, 12):
        data = APIClient().get(setup.url, **setup.owner.headers).json()["data"]
        page = merchant_sign_in(Client(), setup.owner.merchant).get(
            f"/dashboard/plans/{setup.plan.public_id}/"
        )

    assert [(i["status"], i["attempts"]) for i in data["installments"]] == [
        ("action_required", 1),
        ("scheduled", 0),
        ("scheduled", 0),
    ]
    row = page.content.decode()
    row = row[row.index(f'data-installment-id="{first.public_id}"') :]
    row = row[: row.index("</tr>")]
    assert "badge-action_required" in row
    assert 'data-testid="action-required"' in row
    assert "card_expired" in row


# --- the claim's index ----------------------------------------------------------


@pytest.mark.postgres
@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL plans")
def test_the_waiting_claim_reads_only_its_own_partial_index(plan_active):
    """The waiting rows only (few: they may be sorted), never the scheduled
    ones; the new method is looked up by the customer's active methods."""
    query = (
        claims.waiting(timezone.now())
        .select_for_update(skip_locked=True, of=("self",))
        .order_by("next_attempt_at", "id")[:500]
    )
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")
        plan = query.explain()

    assert "using installment_waiting on installments_installment" in plan
    assert "installment_claimable" not in plan
    assert "Seq Scan" not in plan


def test_the_sandbox_card_that_expires_is_good_until_the_end_of_its_month(db):
    setup = bought_with(CARD_EXPIRES_THIS_MONTH)
    card = method_of(setup, CARD_EXPIRES_THIS_MONTH)
    assert (card.exp_month, card.exp_year) == ("03", "2026")
    deposit = SandboxTransaction.objects.get(
        kind=SandboxTransaction.Kind.AUTHORIZATION_CHARGE
    )
    assert deposit.status == "success"
    assert Installment.objects.filter(plan=setup.plan).count() == 3
