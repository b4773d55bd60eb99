"""The one state machine (config/models/state_machine.py) on the models that
adopted it in issue 15: moves the map refuses raise, stamps are written, and the
set-based `transition_where` moves only the rows the map lets move."""

from datetime import UTC, datetime

import pytest

from config.models import IllegalTransition
from installments.plans.models import Installment
from merchants.models import Merchant
from webhooks import services
from webhooks.models import Delivery

pytestmark = pytest.mark.django_db

AT = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def test_a_merchant_never_goes_back_to_pending(merchant_active):
    with pytest.raises(IllegalTransition):
        merchant_active.transition_to(Merchant.Status.PENDING)

    merchant_active.refresh_from_db()
    assert merchant_active.status == Merchant.Status.ACTIVE


def test_suspending_a_merchant_stamps_the_time(merchant_pending):
    merchant_pending.transition_to(Merchant.Status.SUSPENDED, at=AT)

    merchant_pending.refresh_from_db()
    assert merchant_pending.status == Merchant.Status.SUSPENDED
    assert merchant_pending.suspended_at == AT


def test_transition_where_moves_only_rows_the_map_lets_move(merchant_active):
    first, second = (
        services.emit_event(
            merchant=merchant_active,
            event_type="payment.success",
            data={"resourceType": "payment_plan", "number": number},
        )
        for number in (1, 2)
    )
    deliveries = Delivery.objects.filter(event__in=[first, second])
    delivered = Delivery.transition_where(
        deliveries.filter(event=first),
        Delivery.Status.DELIVERED,
        at=AT,
        same={"next_attempt_at": None},
    )

    # delivered -> failed is not a move: only the pending one fails.
    failed = Delivery.transition_where(
        deliveries, Delivery.Status.FAILED, at=AT, same={"next_attempt_at": None}
    )

    assert (delivered, failed) == (1, 1)
    rows = {row.event_id: row for row in deliveries}
    assert rows[first.pk].status == Delivery.Status.DELIVERED
    assert rows[first.pk].delivered_at == AT
    assert rows[first.pk].failed_at is None
    assert rows[second.pk].status == Delivery.Status.FAILED
    assert rows[second.pk].failed_at == AT


def test_transition_where_refuses_a_model_that_keeps_a_history():
    with pytest.raises(TypeError):
        Installment.transition_where(
            Installment.objects.all(), Installment.Status.PROCESSING
        )
