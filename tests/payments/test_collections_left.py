"""What a collection has left to refund: the one rule, in the ledger
(`payments.ledger.selectors.collections_left` and `collection_left`), read from
the collections and the plan refunds' postings against them."""

from datetime import UTC, datetime, timedelta

import pytest
import time_machine

from payments.ledger.selectors import (
    CollectionLeft,
    collection_left,
    collections_left,
)
from payments.ledger.services import (
    RefundPosting,
    collection_post,
    refund_post,
    refund_returned_post,
    refund_settled_post,
)

from ..factories import CustomerFactory

pytestmark = pytest.mark.django_db

PLAN = "plan_abcdefghijklmnopqrstuv"
FIRST = "inst_abcdefghijklmnopqrst01"
SECOND = "inst_abcdefghijklmnopqrst02"
OTHER_PLAN = "plan_zyxwvutsrqponmlkjihgfe"
START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


# (reference, processor reference, resource type, resource id, amount), oldest
# first: the plan's deposit, its first installment, the part of its second
# collected at the last retry (under its own reference), another plan's deposit.
COLLECTIONS = (
    (f"{PLAN}_d1", f"{PLAN}_d1", "payment_plan", PLAN, 30_000),
    (FIRST, f"{FIRST}_a1", "installment", FIRST, 50_000),
    (f"{SECOND}_a4p", f"{SECOND}_a4p", "installment", SECOND, 12_000),
    (f"{OTHER_PLAN}_d1", f"{OTHER_PLAN}_d1", "payment_plan", OTHER_PLAN, 9_000),
)


@pytest.fixture
def plan_collections(payee):
    """The COLLECTIONS posted a minute apart; (merchant, customer, {installment
    id or deposit reference: processor reference})."""
    merchant = payee.merchant
    customer = CustomerFactory()
    posted = {}
    for minutes, (reference, charge, resource, resource_id, amount) in enumerate(
        COLLECTIONS
    ):
        with time_machine.travel(START + timedelta(minutes=minutes), tick=False):
            collection_post(
                merchant=merchant,
                customer=customer,
                amount=amount,
                reference=reference,
                processor_reference=charge,
                resource_type=resource,
                resource_id=resource_id,
            )
        posted[resource_id if resource == "installment" else reference] = charge
    return merchant, customer, posted


def _part(merchant, customer, collection: str, amount: int, n: int) -> RefundPosting:
    return RefundPosting(
        merchant=merchant,
        customer=customer,
        reference=f"rf_abcdefghijklmnopqrst{n:02d}_1",
        collection_reference=collection,
        refund_id=f"rf_abcdefghijklmnopqrst{n:02d}",
        amount=amount,
    )


def _of_plan():
    return {"payment_plan": [PLAN], "installment": [FIRST, SECOND]}


def test_a_collection_never_refunded_has_all_it_collected(plan_collections):
    assert collections_left(_of_plan()) == [
        CollectionLeft(f"{SECOND}_a4p", 12_000, 12_000),
        CollectionLeft(f"{FIRST}_a1", 50_000, 50_000),
        CollectionLeft(f"{PLAN}_d1", 30_000, 30_000),
    ]


def test_refunds_take_off_what_they_asked_for_and_failed_parts_give_it_back(
    plan_collections,
):
    merchant, customer, posted = plan_collections
    first = posted[FIRST]
    partial = posted[SECOND]
    # Two partial refunds of the first installment: one paid back, one open.
    settled = _part(merchant, customer, first, 10_000, 1)
    refund_post(part=settled, remaining=50_000)
    refund_settled_post(part=settled)
    refund_post(part=_part(merchant, customer, first, 5_000, 2), remaining=40_000)
    # A part that failed: its money is the collection's again.
    failed = _part(merchant, customer, first, 20_000, 3)
    refund_post(part=failed, remaining=35_000)
    assert collection_left(first) == 15_000
    refund_returned_post(part=failed, remaining=15_000)
    # The partial collection (part of the second installment), refunded in part.
    refund_post(part=_part(merchant, customer, partial, 7_000, 4), remaining=12_000)
    # Another plan's refund changes nothing here.
    refund_post(
        part=_part(merchant, customer, f"{OTHER_PLAN}_d1", 9_000, 5), remaining=9_000
    )

    assert collections_left(_of_plan()) == [
        CollectionLeft(partial, 12_000, 5_000),
        CollectionLeft(first, 50_000, 35_000),
        CollectionLeft(f"{PLAN}_d1", 30_000, 30_000),
    ]
    assert collection_left(first) == 35_000
    assert collection_left(partial) == 5_000
    assert collection_left(f"{PLAN}_d1") == 30_000
    assert collection_left(f"{OTHER_PLAN}_d1") == 0


def test_a_collection_refunded_in_full_has_nothing_left(plan_collections):
    merchant, customer, posted = plan_collections
    deposit = posted[f"{PLAN}_d1"]
    whole = _part(merchant, customer, deposit, 30_000, 1)
    refund_post(part=whole, remaining=30_000)
    refund_settled_post(part=whole)

    assert collection_left(deposit) == 0
    assert collections_left({"payment_plan": [PLAN]}) == [
        CollectionLeft(deposit, 30_000, 0)
    ]


def test_a_reference_that_is_no_collection_is_refused(plan_collections):
    with pytest.raises(ValueError, match="no collection"):
        collection_left("inst_unknownunknownunknown_a1")
    assert collections_left({"installment": ["inst_unknownunknownunknown"]}) == []
