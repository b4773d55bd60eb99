"""The allocation of a refund (DESIGN section 14) as a pure function, and the
fee rule of refunds."""

from datetime import date

import pytest
from hypothesis import given
from hypothesis import strategies as st

from installments.plans.errors import PlanBusy
from installments.refunds.allocation import Collected, Owed, allocate
from installments.refunds.errors import RefundExceedsRefundable
from payments.ledger.fees import fee_given_back, platform_fee


def owed(sequence, amount, *, busy=False):
    return Owed(
        pk=sequence,
        sequence=sequence,
        due_date=date(2030, sequence, 1),
        amount=amount,
        unpaid=not busy,
    )


def test_unpaid_installments_are_reduced_last_due_first():
    allocation = allocate(
        amount=150,
        owed=[owed(1, 100), owed(3, 100), owed(2, 100)],
        collected=[Collected("dep", 500)],
        limit=1_000,
    )

    assert [(r.pk, r.amount, r.cancels) for r in allocation.reductions] == [
        (3, 100, True),
        (2, 50, False),
    ]
    assert allocation.parts == ()


def test_the_rest_is_paid_back_newest_collection_first_within_what_each_has_left():
    allocation = allocate(
        amount=260,
        owed=[owed(3, 100)],
        collected=[Collected("new", 30), Collected("spent", 0), Collected("old", 500)],
        limit=1_000,
    )

    assert allocation.reduced == 100
    assert [
        (p.collection_reference, p.amount, p.left_before) for p in allocation.parts
    ] == [  # noqa: E501
        ("new", 30, 30),
        ("old", 130, 500),
    ]


def test_more_than_the_limit_or_than_there_is_is_refused():
    with pytest.raises(RefundExceedsRefundable):
        allocate(amount=101, owed=[], collected=[Collected("c", 500)], limit=100)
    with pytest.raises(RefundExceedsRefundable, match="at most 60 kobo"):
        allocate(
            amount=61, owed=[owed(1, 10)], collected=[Collected("c", 50)], limit=999
        )


def test_an_installment_being_charged_refuses_only_a_refund_that_needs_it():
    items = [owed(1, 100, busy=True), owed(2, 100)]

    assert allocate(amount=100, owed=items, collected=[], limit=999).reduced == 100
    with pytest.raises(PlanBusy, match="Installment 1"):
        allocate(amount=101, owed=items, collected=[Collected("c", 500)], limit=999)


@given(
    collected=st.integers(min_value=0, max_value=10**9),
    data=st.data(),
)
def test_the_fee_kept_is_always_the_fee_of_what_is_left(collected, data):
    """Any sequence of refunds and returns on one collection keeps exactly
    `platform_fee(remaining)`."""
    remaining, kept = collected, platform_fee(collected)
    taken = []
    for _ in range(data.draw(st.integers(min_value=0, max_value=8))):
        if taken and data.draw(st.booleans()):
            amount = taken.pop(data.draw(st.integers(0, len(taken) - 1)))
            kept += fee_given_back(remaining=remaining + amount, refunded=amount)
            remaining += amount
        elif remaining:
            amount = data.draw(st.integers(min_value=1, max_value=remaining))
            kept -= fee_given_back(remaining=remaining, refunded=amount)
            remaining -= amount
            taken.append(amount)
        assert kept == platform_fee(remaining)
