"""Disputes under concurrency (PostgreSQL, real threads, DESIGN section 19): a
dispute arriving while a refund of the same collection is made never lets the
collection give back more than it collected; the same dispute event handled
twice at once makes one dispute, one hold and one `dispute.created`; a dispute
arriving while the engine's pass and an early payment run stops the plan's
collection: nothing claimed once it committed, nothing charged after it."""

import threading
import time

import pytest
from django.conf import settings

from installments.collection import claims as engine_claims
from installments.disputes.inbound import CREATE, REMIND
from installments.disputes.models import Dispute
from installments.early import services as early_services
from installments.plans.models import Installment, PaymentPlan
from payments.gateway.processors import get_processor
from payments.ledger.models import DISPUTES_HELD, LedgerTransaction
from payments.ledger.selectors import (
    account_balance,
    collection_left,
    held_in_disputes,
)
from payments.models import SandboxTransaction

from ..conftest import make_merchant_with_key
from .conftest import (
    check_ledger,
    collect,
    event_data,
    installments_of,
    make_active_plan,
    refund,
)
from .disputes import announce, deposit_reference

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.skipif(
        not settings.IS_POSTGRES,
        reason="SQLite serialises every write transaction, so a dispute cannot "
        "overlap a refund or a claim there; run with DATABASE_URL=postgres://...",
    ),
    pytest.mark.django_db(transaction=True),
]

ROUNDS = 4
WAIT = 60  # seconds, at most, for a thread
# Once the first installment is collected (116,666 unpaid), a refund of this
# much takes what is unpaid off and pays 13,334 back from that collection.
RETURNING = 130_000


def together(*funcs) -> list:
    """Each of `funcs` in its own thread (its own connection), released at
    once by a barrier: their results or exceptions, in order."""
    from django.db import connection

    barrier = threading.Barrier(len(funcs))
    out: list = [None] * len(funcs)

    def run(n, func):
        try:
            barrier.wait(timeout=WAIT)
            out[n] = func()
        except Exception as error:  # noqa: BLE001 - the test inspects it
            out[n] = error
        finally:
            connection.close()

    threads = [
        threading.Thread(target=run, args=(n, func)) for n, func in enumerate(funcs)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(WAIT)
        assert not thread.is_alive(), "a thread is stuck"
    return out


def processor_dispute(reference: str) -> str:
    """The customer's bank disputes the charge of `reference` at the sandbox;
    its event is not handled yet. The processor's dispute id."""
    return get_processor().dispute_open(transaction_reference=reference).dispute_id


def gave_back(reference: str) -> tuple[int, int, int]:
    """(collected, refunded and not returned, held by open disputes) of one
    collection, from the ledger."""
    collected = LedgerTransaction.objects.get(
        kind="collection", processor_reference=reference
    ).amount
    held = held_in_disputes(reference)
    refunded = collected - collection_left(reference) - held
    return collected, refunded, held


# --- (a) a dispute and a refund of one collection -------------------------


def test_a_dispute_racing_a_refund_never_gives_back_more_than_collected():
    owner = make_merchant_with_key()
    orders = []
    for n in range(ROUNDS):
        setup = make_active_plan(
            owner, email=f"race{n}@mail.example.com", order_reference=f"ORD-{n}"
        )
        first = installments_of(setup.plan)[0]
        collect(on_date=first.due_date)
        first.refresh_from_db()
        assert first.status == Installment.Status.PAID
        reference = first.processor_reference
        dispute_id = processor_dispute(reference)

        handled, refunded = together(
            lambda dispute_id=dispute_id: announce(CREATE, dispute_id),
            lambda setup=setup: refund(setup, RETURNING),
        )

        assert handled == "handled", handled
        assert not isinstance(refunded, Exception), refunded
        dispute = Dispute.objects.get(processor_dispute_id=dispute_id)
        collected, given, held = gave_back(reference)
        assert collected >= given + held
        assert held == dispute.amount_held
        if refunded.status_code == 201:
            # The refund first: the dispute holds what the collection had left.
            orders.append("refund first")
            assert given == RETURNING - 116_666
            assert held == collected - given
        else:
            # The dispute first: the refund is refused, nothing moved.
            orders.append("dispute first")
            assert refunded.status_code == 409, refunded.content
            assert refunded.json()["error"]["code"] == "refund_during_dispute"
            assert (given, held) == (0, collected)
            assert not setup.plan.refunds.exists()
        assert "clean" in check_ledger()
    # Whatever order each round took (recorded for a failure's message).
    assert len(orders) == ROUNDS, orders


# --- (b) one dispute event twice at once ------------------------------------


@pytest.mark.parametrize(
    "events",
    [(CREATE, CREATE), (CREATE, REMIND)],
    ids=["created twice", "created and reminded"],
)
def test_one_dispute_handled_twice_at_once_is_one_dispute(events):
    for n in range(ROUNDS):
        setup = make_active_plan(email=f"twice{n}@mail.example.com")
        dispute_id = processor_dispute(deposit_reference(setup.plan))

        outcomes = together(*(lambda e=e: announce(e, dispute_id) for e in events))

        assert [o for o in outcomes if isinstance(o, Exception)] == []
        assert set(outcomes) <= {"handled", "duplicate"}, outcomes
        [dispute] = Dispute.objects.filter(processor_dispute_id=dispute_id)
        assert dispute.amount_held == setup.plan.deposit_amount
        holds = LedgerTransaction.objects.filter(
            kind="dispute_held", reference=dispute.public_id
        )
        assert holds.count() == 1
        created = event_data(setup.owner.merchant, "dispute.created")
        assert [d["resourceId"] for d in created] == [dispute.public_id]
        plan = PaymentPlan.objects.get(pk=setup.plan.pk)
        assert plan.open_disputes == 1
    assert -account_balance(DISPUTES_HELD) == sum(
        d.amount_held for d in Dispute.objects.all()
    )
    assert "clean" in check_ledger()


# --- (c) a dispute, the engine's pass and an early payment at once ----------


@pytest.fixture
def claims_seen(monkeypatch):
    """Every engine claim and early payment request, with the moment it began
    (before its statement or its lock), and what it took."""
    seen: list[tuple[str, float, object]] = []
    real_locked = engine_claims._locked
    real_early = early_services.early_payment_claim

    def locked(queryset, limit):
        began = time.monotonic()
        rows = real_locked(queryset, limit)
        seen.append(("engine", began, [row.pk for row in rows]))
        return rows

    def early(**kwargs):
        began = time.monotonic()
        try:
            payment = real_early(**kwargs)
        except Exception as error:
            seen.append(("early", began, error))
            raise
        seen.append(("early", began, payment))
        return payment

    monkeypatch.setattr(engine_claims, "_locked", locked)
    monkeypatch.setattr(early_services, "early_payment_claim", early)
    return seen


def charges() -> int:
    """Successful charges at the sandbox, of every kind."""
    return SandboxTransaction.objects.filter(status="success").count()


def test_a_dispute_racing_the_engine_and_an_early_payment_stops_collection(
    claims_seen,
):
    owner = make_merchant_with_key()
    for n in range(ROUNDS):
        claims_seen.clear()
        setup = make_active_plan(
            owner, email=f"pause{n}@mail.example.com", order_reference=f"ORD-{n}"
        )
        first, second, *_ = installments_of(setup.plan)
        dispute_id = processor_dispute(deposit_reference(setup.plan))
        committed: list[float] = []

        def dispute(dispute_id=dispute_id, committed=committed):
            outcome = announce(CREATE, dispute_id)
            committed.append(time.monotonic())  # after its commit
            return outcome

        handled, _, paid = together(
            dispute,
            lambda first=first: collect(on_date=first.due_date),
            lambda setup=setup, second=second: setup.shopper.post(
                f"{setup.url}/pay", {"installment_id": second.public_id}
            ),
        )

        assert handled == "handled", handled
        assert not isinstance(paid, Exception), paid
        assert paid.status_code in (200, 201, 202, 409), paid.content
        if paid.status_code == 409:
            assert paid.json()["error"]["code"] in (
                "plan_not_collectable",
                "payment_in_progress",
            ), paid.content
        # Nothing began after the dispute committed took anything of the plan.
        mine = set(setup.plan.installments.values_list("pk", flat=True))
        for who, began, took in claims_seen:
            if began < committed[0]:
                continue
            if who == "engine":
                assert not mine & set(took), (who, took)
            else:
                assert isinstance(took, Exception), (who, took)

        # After the dispute: neither the engine nor the customer charges it.
        before = charges()
        last = installments_of(setup.plan)[-1]
        summary = collect(on_date=last.due_date)
        rows = {row.pk: row.status for row in installments_of(setup.plan)}
        assert all(status != Installment.Status.PROCESSING for status in rows.values())
        early = setup.shopper.post(
            f"{setup.url}/pay", {"installment_id": last.public_id}
        )
        assert early.status_code == 409, early.content
        assert early.json()["error"]["code"] == "plan_not_collectable"
        assert charges() == before, summary
        assert PaymentPlan.objects.get(pk=setup.plan.pk).open_disputes == 1
        assert "clean" in check_ledger()
