"""The plan representation (DESIGN section 11) is the core's, its refunds and
reschedules parts their features' (installments/plans/hooks.py): every key is
there, in the documented order, whichever feature fills it in."""

import pytest

from installments.plans import hooks
from installments.plans.selectors import plans_with_installments
from installments.plans.serializers import plan_output
from installments.refunds.selectors import amount_refund_pending

pytestmark = pytest.mark.django_db

PLAN_KEYS = [
    "id",
    "status",
    "merchant_id",
    "livemode",
    "customer_id",
    "order_reference",
    "currency",
    "total_amount",
    "deposit_amount",
    "amount_paid",
    "amount_remaining",
    "amount_refunded",
    "amount_refund_pending",
    "schedule_type",
    "installment_count",
    "preferred_day",
    "collection",
    "installments",
    "refunds",
    "reschedules",
    "customer_reschedules_left",
    "created_at",
]


def test_the_plan_has_every_key_in_order_with_its_features_parts(plan_active):
    plan = plans_with_installments().get(pk=plan_active.plan.pk)

    output = plan_output(plan)

    assert list(output) == PLAN_KEYS
    assert output["refunds"] == []
    assert output["reschedules"] == []
    assert output["customer_reschedules_left"] == (
        plan.merchant.customer_reschedules_allowed
    )
    assert output["amount_refund_pending"] == 0


def test_a_second_refund_pending_reader_is_refused():
    hooks.register_refund_pending_reader(amount_refund_pending)  # the same: fine

    with pytest.raises(RuntimeError, match="registered already"):
        hooks.register_refund_pending_reader(lambda plan: 0)
