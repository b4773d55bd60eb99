"""Random sequences of collections (partial collections of DESIGN section 15
included), refunds, processor answers, disputes won or lost (section 19) and
cancellations, held against the model of DESIGN sections 14 and 19
(`refund_model.py`): the allocation, the fee rule and the books.

Two layers, one vocabulary of actions:

- the pure layer: the allocation (`allocate`) and the fee rule
  (`platform_fee`, `fee_given_back`) over one plan, with engine claims (an
  installment `processing`) and the processor's answers in any order, failures
  included. Cheap: it takes most examples.
- the services layer: real plans made through checkout on the sandbox, the
  engine's passes (`collect_installments`), refunds and cancellations over the
  API, the sandbox's settlement pass, disputes of a random card collection
  opened and decided by the sandbox (`charge.dispute.create` and `.resolve`
  handled; a refund is refused with 409 while one is open), parts failing on
  the refunds-fail card, partial collections at the last retry on the
  partial-funds card (the rest then paid or defaulted);
  then `check_ledger` clean, and for every plan and collection the wallet and
  the fee account hold exactly what DESIGN 14 says. Each example rolls back.

PROPERTY_EXAMPLES sets the pure layer's examples (200 by default; .ci/run sets
2000); the services layer runs a twentieth of them (at least 10).
"""

import json
import os
import re
from collections import Counter, defaultdict
from datetime import date, timedelta

import hypothesis.extra.django
from django.db.models import Min
from django.utils import timezone
from hypothesis import HealthCheck, Phase, event, given, note, settings
from hypothesis import strategies as st
from rest_framework.test import APIClient

from installments.disputes.models import Dispute
from installments.plans.errors import PlanBusy
from installments.plans.models import Installment, PaymentPlan
from installments.refunds.allocation import Collected, Owed, allocate
from installments.refunds.errors import RefundExceedsRefundable
from payments.gateway.processors.sandbox.values import (
    CARD_PARTIAL_FUNDS,
    CARD_REFUNDS_FAIL,
)
from payments.ledger.fees import fee_given_back, platform_fee
from payments.ledger.models import (
    DISPUTES_HELD,
    PLATFORM_FEES,
    REFUNDS_IN_TRANSIT,
    LedgerLine,
    LedgerTransaction,
    wallet_account,
)
from payments.ledger.selectors import account_balance
from payments.models import Customer
from webhooks.models import Event

from ..checkout.conftest import (
    CARD_OK,
    Shopper,
    add_card,
    complete,
    open_session,
    register,
)
from ..conftest import customer_jwt, make_merchant_with_key
from . import refund_model as model
from .conftest import PlanSetup, cancel, check_ledger, collect, refund
from .conftest import sandbox_refunds_settle as settlement_pass
from .disputes import dispute_decide, dispute_open

EXAMPLES = int(os.environ.get("PROPERTY_EXAMPLES", "200"))
# A refund's figures (docs/refunds.md, "What a refund says it did").
FIGURES = (
    "amount",
    "amount_requested",
    "amount_reduced",
    "amount_returned",
    "amount_pending",
    "amount_failed",
)
SERVICE_EXAMPLES = max(10, EXAMPLES // 20)

# --- actions ------------------------------------------------------------------
# A refund's amount is chosen when it runs, from what is refundable then:
# `within` 1..refundable, `full` all of it, `beyond` more than refundable.
seeds = st.integers(min_value=0, max_value=10**9)
refunds = st.tuples(
    st.just("refund"),
    st.integers(0, 2),  # which plan
    st.sampled_from(["within", "within", "full", "beyond"]),
    seeds,
)
cancels = st.tuples(st.just("cancel"), st.integers(0, 2))
# A dispute of one collection of a plan (which: by the seed, among those never
# disputed), and the bank's decision of an open one (which: by the seed).
disputes = st.tuples(st.just("dispute"), st.integers(0, 2), seeds)
decisions = st.tuples(st.just("decide"), seeds, st.booleans())


def refund_amount(mode: str, seed: int, refundable: int) -> int | None:
    if mode == "beyond":
        return refundable + 1 + seed % 30_000
    if refundable == 0:
        return None
    return refundable if mode == "full" else 1 + seed % refundable


# --- the pure layer -----------------------------------------------------------


@st.composite
def pure_plans(draw) -> model.PlanModel:
    amounts = draw(st.lists(st.integers(1, 10**7), min_size=1, max_size=6))
    deposit = draw(st.integers(1, 10**7))
    start = date(2030, 1, 31)
    plan = model.PlanModel(
        total=deposit + sum(amounts),
        installments=[
            model.InstallmentModel(n, start + timedelta(days=30 * n), a, a)
            for n, a in enumerate(amounts, start=1)
        ],
    )
    plan.collected("deposit", deposit)
    return plan


pure_actions = st.lists(
    st.one_of(
        st.just(("claim",)),
        st.just(("pay",)),
        st.tuples(st.just("partial"), seeds),
        st.just(("default",)),
        refunds,
        refunds,
        st.tuples(st.just("answer"), seeds, st.sampled_from(["processed", "failed"])),
        cancels,
        disputes,
        decisions,
    ),
    max_size=14,
)


class Books:
    """The ledger of one plan as the fee rule moves it, per collection: what
    the fee account and the merchant's wallet hold of it, and what is in
    transit to the customer."""

    def __init__(self):
        self.fees: dict[str, int] = defaultdict(int)
        self.wallet: dict[str, int] = defaultdict(int)
        self.in_transit = 0

    def collection(self, reference: str, amount: int) -> None:
        self.fees[reference] += platform_fee(amount)
        self.wallet[reference] += amount - platform_fee(amount)

    def refund(self, reference: str, amount: int, *, left_before: int) -> None:
        given = fee_given_back(remaining=left_before, refunded=amount)
        self.fees[reference] -= given
        self.wallet[reference] -= amount - given
        self.in_transit += amount

    def returned(self, reference: str, amount: int, *, left_with_it: int) -> None:
        kept = fee_given_back(remaining=left_with_it + amount, refunded=amount)
        self.fees[reference] += kept
        self.wallet[reference] += amount - kept
        self.in_transit -= amount

    def processed(self, amount: int) -> None:
        self.in_transit -= amount

    def dispute_held(self, reference: str, amount: int) -> None:
        self.wallet[reference] -= amount

    def dispute_won(self, reference: str, amount: int) -> None:
        self.wallet[reference] += amount

    def dispute_lost(self, reference: str, amount: int, *, left: int) -> None:
        """The fee on the charged-back money is given back by the refunds'
        rule; `left`: what the collection has left without the held amount."""
        given = fee_given_back(remaining=left + amount, refunded=amount)
        self.fees[reference] -= given
        self.wallet[reference] += given


def undisputed(plan: model.PlanModel, *, on_card_only: bool = False) -> list:
    """The plan's collections no dispute has named yet (the processor opens
    one dispute per charge), oldest first."""
    named = {d.collection_reference for d in plan.disputes}
    return [
        item
        for item in reversed(plan.collections)
        if item.reference not in named and (item.on_card or not on_card_only)
    ]


def refund_shape(refund: model.RefundModel) -> str:
    """What kind of refund it was (Hypothesis's statistics count them)."""
    money = "no money" if not refund.parts else f"{min(len(refund.parts), 2)}+ part(s)"
    return f"refund: {'reduces, ' if refund.reduced else ''}{money}"


def pure_refund(plan: model.PlanModel, books: Books, amount: int) -> None:
    """`allocate` against the model, then the postings of its parts."""
    left_before = {item.reference: item.left for item in plan.collections}
    owed = [
        Owed(
            row.sequence,
            row.sequence,
            row.due_date,
            row.rest,
            row.status in (model.SCHEDULED, model.RETRYING),
        )
        for row in plan.open
    ]
    collected = [Collected(item.reference, item.left) for item in plan.collections]
    limit = plan.total - plan.amount_refunded
    if plan.open_disputes:
        allocation = None  # refused before anything is allocated
    else:
        try:
            allocation = allocate(
                amount=amount, owed=owed, collected=collected, limit=limit
            )
        except (RefundExceedsRefundable, PlanBusy) as error:
            allocation = error
    try:
        expected = plan.refund(amount, parts_fail=False)
    except model.DuringDispute:
        event("refund: refused during a dispute")
        return
    except model.Exceeds:
        event("refund: more than refundable")
        assert isinstance(allocation, RefundExceedsRefundable), allocation
        assert f"at most {plan.refundable()} kobo" in str(allocation)
        return
    except model.Busy:
        event("refund: needs an installment being charged")
        assert isinstance(allocation, PlanBusy), allocation
        return
    assert not isinstance(allocation, Exception), allocation
    event(refund_shape(expected))
    assert [(r.pk, r.amount) for r in allocation.reductions] == expected.reduced
    assert [r.cancels for r in allocation.reductions] == [
        plan.installments[pk - 1].status == "cancelled" for pk, _ in expected.reduced
    ]
    assert [(p.collection_reference, p.amount) for p in allocation.parts] == [
        (part.collection_reference, part.amount) for part in expected.parts
    ]
    for part in allocation.parts:
        assert part.left_before == left_before[part.collection_reference]
        books.refund(
            part.collection_reference, part.amount, left_before=part.left_before
        )


def pure_step(plan: model.PlanModel, books: Books, action: tuple) -> None:
    kind = action[0]
    if kind in ("claim", "pay", "partial", "default"):
        busy = [row for row in plan.installments if row.status == "processing"]
        row = busy[0] if busy else next(iter(plan.unpaid), None)
        if row is None or (kind == "claim" and busy) or plan.status != "active":
            return
        if plan.open_disputes and not busy:
            return  # nothing of a plan with an open dispute is charged
        if kind == "claim":
            plan.claim(row)
        elif kind == "pay":
            books.collection(f"inst{row.sequence}", row.rest)
            plan.pay(row, f"inst{row.sequence}")
        elif kind == "default":
            plan.default(row)
        elif row.amount_paid == 0 and row.rest >= 2:
            # At most one partial collection per installment, less than owed.
            amount = 1 + action[1] % (row.rest - 1)
            plan.partial(row, f"inst{row.sequence}_a4p", amount)
            books.collection(f"inst{row.sequence}_a4p", amount)
            event("partial collection")
    elif kind == "refund":
        amount = refund_amount(action[2], action[3], plan.refundable())
        if amount is not None:
            pure_refund(plan, books, amount)
    elif kind == "answer":
        pending = [p for r in plan.refunds for p in r.parts if p.status == "pending"]
        if pending:
            part = pending[action[1] % len(pending)]
            item = plan.collection_of(part)
            # What it has left with this part back, counting what a dispute
            # holds (the fee's base).
            left_with_it = item.left + item.held
            plan.part_answered(part, action[2])
            event(f"part {action[2]}")
            if action[2] == "failed":
                books.returned(
                    part.collection_reference, part.amount, left_with_it=left_with_it
                )
            else:
                books.processed(part.amount)
    elif kind == "dispute":
        candidates = undisputed(plan)
        if candidates:
            item = candidates[action[2] % len(candidates)]
            dispute = plan.dispute_open(item, item.amount)
            books.dispute_held(item.reference, dispute.amount_held)
            event("dispute opened" + ("" if dispute.amount_held else ", nothing held"))
    elif kind == "decide":
        open_ = plan.open_disputes
        if open_:
            dispute = open_[action[1] % len(open_)]
            item = next(
                c
                for c in plan.collections
                if c.reference == dispute.collection_reference
            )
            left = item.left
            plan.dispute_decide(dispute, won=action[2])
            if action[2]:
                books.dispute_won(item.reference, dispute.amount_held)
            else:
                books.dispute_lost(item.reference, dispute.amount_held, left=left)
            event(f"dispute {dispute.status}")
    else:
        plan.cancel()


@settings(max_examples=EXAMPLES, deadline=None)
@given(plan=pure_plans(), actions=pure_actions)
def test_allocation_and_fee_rule_keep_the_books_of_any_sequence(plan, actions):
    books = Books()
    books.collection("deposit", plan.collections[0].amount)
    for action in actions:
        pure_step(plan, books, action)

        assert plan.conserved()
        assert books.in_transit == plan.in_transit()
        for item in plan.collections:
            # Fee kept == fee(collected - refunded - charged back).
            assert books.fees[item.reference] == model.fee(item.left + item.held)
            assert (
                books.fees[item.reference] + books.wallet[item.reference] == item.left
            )
        assert sum(books.fees.values()) + sum(books.wallet.values()) == plan.kept()
        assert 0 <= plan.amount_refunded + plan.amount_charged_back <= plan.total


# --- the services layer -------------------------------------------------------

SCHEDULES = ["monthly", "biweekly", "weekly"]
transfers = st.tuples(
    st.just("transfer"),
    st.integers(0, 2),
    st.integers(0, 1_000),
    st.sampled_from(["paid", "expired"]),
)
OK, REFUNDS_FAIL, PARTIAL = "ok", "refunds_fail", "partial"
# The partial-funds card gives a partial debit this share of what is owed.
PARTIAL_SHARE = 60
service_plans = st.lists(
    st.tuples(
        st.integers(10_000, 5_000_000),  # the order's amount
        st.integers(1, 4),  # installments
        st.sampled_from(SCHEDULES),
        # The card the customer's installments are charged on: one whose
        # charges and refunds go through, the refunds-fail card, or the
        # partial-funds card (partial collection at the last retry).
        st.sampled_from([OK, OK, REFUNDS_FAIL, PARTIAL]),
    ),
    min_size=1,
    max_size=3,
)
service_actions = st.lists(
    st.one_of(
        st.just(("collect",)),
        # Four passes in a row: a failing installment's retries, up to its
        # last one (a partial collection on the partial-funds card).
        st.just(("retries",)),
        refunds,
        refunds,
        refunds,
        st.just(("settle",)),
        cancels,
        # The customer pays an unpaid installment early by bank transfer
        # (DESIGN 17): the money lands, or the payment expires unpaid.
        transfers,
        # The customer's bank disputes a card collection; the bank decides.
        disputes,
        decisions,
        decisions,
    ),
    min_size=3,
    max_size=12,
)


class Sequence:
    """One example's plans (one merchant), each beside its model; `shoppers`:
    card kind -> (customer, the card that pays their deposit)."""

    def __init__(self, owner, shoppers: dict[str, tuple[Shopper, str]], plans: list):
        self.owner = owner
        self.setups: list[PlanSetup] = []
        self.models: list[model.PlanModel] = []
        self.fails: list[bool] = []
        for n, (amount, count, schedule, kind) in enumerate(plans):
            shopper, card = shoppers[kind]
            token = open_session(owner, amount=amount, order_reference=f"ORD-{n}")
            response = complete(
                shopper,
                token,
                card,
                schedule_type=schedule,
                installment_count=count,
            )
            assert response.status_code == 201, response.content
            plan = PaymentPlan.objects.get(public_id=response.json()["data"]["id"])
            self.setups.append(PlanSetup(owner=owner, shopper=shopper, plan=plan))
            self.models.append(modelled(plan))
            self.fails.append(kind == REFUNDS_FAIL)
        if any(kind == PARTIAL for *_, kind in plans):
            # Deposits paid: the partial-funds card is all Chidi has left.
            shopper, card = shoppers[PARTIAL]
            response = shopper.client.delete(f"/api/v1/payment-methods/{card}")
            assert response.status_code == 200, response.content

    def step(self, action: tuple) -> None:
        kind = action[0]
        if kind == "collect":
            self.engine_pass()
        elif kind == "retries":
            for _ in range(4):
                self.engine_pass()
        elif kind == "settle":
            settled = settlement_pass()
            event(f"settlement pass: {'some' if settled else 'nothing'} settled")
            for plan in self.models:
                for refund_ in plan.refunds:
                    for part in refund_.parts:
                        plan.part_answered(part, model.PROCESSED)
        elif kind == "transfer":
            self.transfer(action[1] % len(self.models), action[2], action[3])
        elif kind == "dispute":
            self.dispute(action[1] % len(self.models), action[2])
        elif kind == "decide":
            self.decide(action[1], action[2])
        elif kind == "refund":
            n = action[1] % len(self.models)
            amount = refund_amount(action[2], action[3], self.models[n].refundable())
            if amount is not None:
                self.refund(n, amount)
        else:
            n = action[1] % len(self.models)
            response = cancel(self.setups[n])
            cancelled = self.models[n].cancel()
            event("cancel: done" if cancelled else "cancel: refused (409)")
            assert response.status_code == (200 if cancelled else 409), response.content

    def engine_pass(self) -> None:
        """The engine's pass on the day of the next attempt due (a due date or
        a retry); what it did to each installment is what DESIGN 7 and 15
        say a charge's answer does: paid in full, failed, partly collected at
        the last retry (60% of what was owed, on the partial-funds card), or
        defaulted."""
        due = Installment.objects.filter(
            plan__in=[setup.plan for setup in self.setups],
            plan__status="active",
            status__in=("scheduled", "failed"),
            next_attempt_at__isnull=False,
        ).aggregate(first=Min("next_attempt_at"))["first"]
        if due is None:
            return
        collect(timezone.localdate(due))
        for setup, plan in zip(self.setups, self.models, strict=True):
            rows = {row.sequence: row for row in setup.plan.installments.all()}
            if plan.open_disputes:
                # DESIGN 19: nothing of a plan with an open dispute is charged.
                assert [
                    (r.status, r.amount_paid) for r in map(rows.get, sorted(rows))
                ] == [(r.status, r.amount_paid) for r in plan.installments]
                event("engine pass: plan paused by a dispute")
            for row in list(plan.unpaid):
                observed(plan, row, rows[row.sequence])

    def transfer(self, n: int, seed: int, outcome: str) -> None:
        """One unpaid installment paid early by bank transfer: 202, then the
        sandbox lands the money (paid under the payment's own reference, as
        the engine would have collected it) or expires it (nothing moved, the
        installment exactly as it was)."""
        setup, plan = self.setups[n], self.models[n]
        if plan.status != "active" or not plan.unpaid:
            event("transfer: nothing to pay")
            return
        row = plan.unpaid[seed % len(plan.unpaid)]
        real = setup.plan.installments.get(sequence=row.sequence)
        before = (real.status, real.attempts, real.next_attempt_at, real.amount_paid)
        response = setup.shopper.post(
            f"{setup.url}/pay",
            {"installment_id": real.public_id, "channel": "bank_transfer"},
        )
        if plan.open_disputes:
            event("transfer: refused during a dispute")
            assert response.status_code == 409, response.content
            assert response.json()["error"]["code"] == "plan_not_collectable"
            real.refresh_from_db()
            after = (real.status, real.attempts, real.next_attempt_at, real.amount_paid)
            assert after == before
            return
        assert response.status_code == 202, response.content
        payment = response.json()["data"]["payment"]
        assert payment["amount"] == row.rest
        answer = APIClient().post(
            f"/api/v1/sandbox/payments/{payment['id']}/"
            + ("complete" if outcome == "paid" else "expire"),
            {},
            format="json",
            **setup.owner.headers,
        )
        assert answer.status_code == 200, answer.content
        real.refresh_from_db()
        if outcome == "paid":
            event("transfer: paid")
            assert (real.status, real.processor_reference) == (
                "paid",
                payment["reference"],
            )
            plan.pay(row, real.processor_reference, on_card=False)
        else:
            event("transfer: expired")
            after = (real.status, real.attempts, real.next_attempt_at, real.amount_paid)
            assert after == before

    def dispute(self, n: int, seed: int) -> None:
        """The customer's bank disputes one of the plan's card collections
        (never one disputed before: one dispute per charge); its
        `charge.dispute.create` is handled."""
        plan = self.models[n]
        candidates = undisputed(plan, on_card_only=True)
        if not candidates:
            event("dispute: no collection left to dispute")
            return
        item = candidates[seed % len(candidates)]
        real = dispute_open(item.reference)
        expected = plan.dispute_open(item, real.amount)
        assert (real.status, real.amount_held, real.plan_id) == (
            Dispute.Status.NEEDS_RESPONSE,
            expected.amount_held,
            self.setups[n].plan.pk,
        )
        event("dispute opened" + ("" if expected.amount_held else ", nothing held"))

    def decide(self, seed: int, won: bool) -> None:
        """The bank decides one open dispute of the sequence's plans."""
        open_ = [(plan, d) for plan in self.models for d in plan.open_disputes]
        if not open_:
            return
        plan, expected = open_[seed % len(open_)]
        real = Dispute.objects.get(collection_reference=expected.collection_reference)
        real = dispute_decide(real, won=won)
        plan.dispute_decide(expected, won=won)
        assert real.status == (Dispute.Status.WON if won else Dispute.Status.LOST)
        event(f"dispute {real.status}")

    def refund(self, n: int, amount: int) -> None:
        before = (LedgerTransaction.objects.count(), Event.objects.count())
        response = refund(self.setups[n], amount)
        try:
            expected = self.models[n].refund(amount, parts_fail=self.fails[n])
        except model.DuringDispute:
            event("refund: refused during a dispute")
            assert response.status_code == 409, response.content
            assert response.json()["error"]["code"] == "refund_during_dispute"
            assert (LedgerTransaction.objects.count(), Event.objects.count()) == before
            return
        except model.Exceeds:
            event("refund: more than refundable")
            assert response.status_code == 422, response.content
            assert response.json()["error"]["code"] == "refund_exceeds_refundable"
            refundable = self.models[n].refundable()
            assert f"at most {refundable} kobo" in response.json()["error"]["message"]
            assert (LedgerTransaction.objects.count(), Event.objects.count()) == before
            return
        event(refund_shape(expected))
        if any(part.status == model.FAILED for part in expected.parts):
            event("refund: parts failed")
        assert response.status_code == 201, response.content
        data = response.json()["data"]
        assert (data["amount_requested"], data["status"]) == (amount, expected.status)
        # What it really did at this moment (its parts may have failed at once).
        assert {key: data[key] for key in expected.figures()} == expected.figures()
        assert [
            (part["collection_reference"], part["amount"], part["status"])
            for part in data["parts"]
        ] == [(p.collection_reference, p.amount, p.status) for p in expected.parts]

    def compare(self) -> None:
        """Each plan's rows say what its model says."""
        for setup, plan in zip(self.setups, self.models, strict=True):
            row = PaymentPlan.objects.get(pk=setup.plan.pk)
            assert (
                row.status,
                row.amount_refunded,
                row.open_disputes,
                row.amount_charged_back,
            ) == (
                plan.status,
                plan.amount_refunded,
                len(plan.open_disputes),
                plan.amount_charged_back,
            )
            assert [
                (d.collection_reference, d.amount_held, d.is_open, d.status)
                for d in row.disputes.order_by("id")
            ] == [
                (
                    d.collection_reference,
                    d.amount_held,
                    d.status == "open",
                    d.status if d.status != "open" else Dispute.Status.NEEDS_RESPONSE,
                )
                for d in plan.disputes
            ]
            # The plan's amount_refunded is its refunds' true figures, at every
            # moment (pending, partly failed, settled), and so is its pending.
            assert plan.amount_refunded == sum(r.amount for r in plan.refunds)
            shown = APIClient().get(setup.url, **setup.owner.headers).json()["data"]
            assert (shown["amount_refunded"], shown["amount_refund_pending"]) == (
                plan.amount_refunded,
                sum(r.amount_pending for r in plan.refunds),
            )
            assert [
                {key: r[key] for key in (*FIGURES, "status")}
                for r in reversed(shown["refunds"])  # newest first there
            ] == [r.figures() | {"status": r.status} for r in plan.refunds]
            assert [
                (i.sequence, i.status, i.amount, i.original_amount, i.amount_paid)
                for i in row.installments.order_by("sequence")
            ] == [
                (i.sequence, i.status, i.amount, i.original_amount, i.amount_paid)
                for i in plan.installments
            ]
            assert [
                (r.amount, r.amount_failed, r.status, parts_of(r.parts.all()))
                for r in row.refunds.order_by("created_at", "id")
            ] == [
                (r.amount, r.amount_failed, r.status, parts_of(r.parts))
                for r in plan.refunds
            ]

    def books(self) -> None:
        """The ledger holds exactly what each plan kept, and is clean."""
        wallet = wallet_account(self.owner.merchant.public_id)
        for plan in self.models:
            kept = by_collection(plan, (wallet, PLATFORM_FEES))
            fees = by_collection(plan, (PLATFORM_FEES,))
            # Collected less refunded is what the wallet and the fee account
            # gained from the plan, and each collection keeps the fee of what
            # it has left.
            assert sum(kept.values()) == plan.kept()
            assert fees == plan.fee_kept()
        assert -account_balance(wallet) == sum(
            plan.kept() - sum(plan.fee_kept().values()) for plan in self.models
        )
        assert -account_balance(REFUNDS_IN_TRANSIT) == sum(
            plan.in_transit() for plan in self.models
        )
        assert -account_balance(DISPUTES_HELD) == sum(
            plan.held() for plan in self.models
        )
        self.events_once()
        assert "clean" in check_ledger()

    def events_once(self) -> None:
        """refund.* once per refund and fact, payment_plan.cancelled once per
        cancelled plan."""
        sent = Counter(
            (e.event_type, re.search(r'"resourceId": ?"([^"]+)"', e.body).group(1))
            for e in Event.objects.filter(
                merchant=self.owner.merchant,
                event_type__in=[
                    "refund.created",
                    "refund.processed",
                    "refund.failed",
                    "payment_plan.cancelled",
                    "dispute.created",
                    "dispute.won",
                    "dispute.lost",
                ],
            )
        )
        expected = Counter()
        for setup, plan in zip(self.setups, self.models, strict=True):
            ids = setup.plan.refunds.order_by("created_at", "id")
            for public_id, refund_ in zip(
                ids.values_list("public_id", flat=True), plan.refunds, strict=True
            ):
                expected["refund.created", public_id] += 1
                if refund_.status != model.PENDING:
                    expected[f"refund.{refund_.status}", public_id] += 1
                    # The settled refund's event says what it did.
                    [settled] = Event.objects.filter(
                        event_type=f"refund.{refund_.status}",
                        body__contains=f'"{public_id}"',
                    )
                    data = json.loads(settled.body)["data"]
                    assert (
                        data["amount"],
                        data["amountReturned"],
                        data["amountPending"],
                        data["amountFailed"],
                    ) == (
                        refund_.amount,
                        refund_.amount_returned,
                        0,
                        refund_.amount_failed,
                    )
            if plan.cancellations:
                expected["payment_plan.cancelled", setup.plan.public_id] += 1
            for dispute in setup.plan.disputes.all():
                expected["dispute.created", dispute.public_id] += 1
                if not dispute.is_open:
                    expected[f"dispute.{dispute.status}", dispute.public_id] += 1
        assert sent == expected


def observed(plan: model.PlanModel, row: model.InstallmentModel, real) -> None:
    """Follow one unpaid installment through an engine pass, checking the
    money it moved."""
    if real.amount_paid != row.amount_paid:
        event("engine pass: partial collection")
        assert real.attempts == 4 and row.amount_paid == 0
        taken = real.amount_paid
        assert taken == row.rest * PARTIAL_SHARE // 100
        plan.partial(row, real.partial_reference, taken)
    if real.status == "paid":
        event("engine pass: collected")
        plan.pay(row, real.processor_reference)
    elif real.status == "defaulted":
        event("engine pass: defaulted")
        plan.default(row)
    elif real.status == "failed":
        plan.fail(row)


def modelled(plan: PaymentPlan) -> model.PlanModel:
    deposit = LedgerTransaction.objects.get(
        kind="collection", resource_type="payment_plan", resource_id=plan.public_id
    )
    assert deposit.amount == plan.deposit_amount
    result = model.PlanModel(
        total=plan.total_amount,
        installments=[
            model.InstallmentModel(i.sequence, i.due_date, i.amount, i.original_amount)
            for i in plan.installments.order_by("sequence")
        ],
    )
    result.collected(deposit.processor_reference, deposit.amount)
    return result


def parts_of(parts) -> list[tuple]:
    return [(p.collection_reference, p.amount, p.status) for p in parts]


def by_collection(plan: model.PlanModel, accounts: tuple[str, ...]) -> dict[str, int]:
    """What these accounts gained from each of the plan's collections
    (its collection and every refund posting against it)."""
    references = [item.reference for item in plan.collections]
    gained = dict.fromkeys(references, 0)
    for reference, amount in LedgerLine.objects.filter(
        account__in=accounts, transaction__processor_reference__in=references
    ).values_list("transaction__processor_reference", "amount"):
        gained[reference] -= amount
    return gained


class RefundSequencesOnTheServices(hypothesis.extra.django.TestCase):
    """Each example: new plans of one merchant through checkout, then a random
    sequence of engine passes, refunds, settlement passes and cancellations;
    rolled back after it (the customer and their cards are the class's)."""

    @classmethod
    def setUpTestData(cls):
        # A customer per card: installments are charged on the customer's
        # default method, so a customer's collections all refund alike.
        cls.customers = {}
        for kind, email, card in [
            (OK, "ada@mail.example.com", CARD_OK),
            (REFUNDS_FAIL, "bola@mail.example.com", CARD_REFUNDS_FAIL),
            (PARTIAL, "chidi@mail.example.com", CARD_OK),
        ]:
            shopper = register(email)
            cls.customers[kind] = (shopper.customer_id, add_card(shopper, card))
        # Chidi pays the deposit with a good card; his installments are charged
        # on his default, a card that only ever has part of the money.
        chidi = cls.shopper(cls.customers[PARTIAL][0])
        partial_card = add_card(chidi, CARD_PARTIAL_FUNDS)
        response = chidi.client.put(f"/api/v1/payment-methods/{partial_card}/default")
        assert response.status_code == 200, response.content

    @settings(
        max_examples=SERVICE_EXAMPLES,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow],
        # Explaining a failure reruns it hundreds of times: minutes here.
        phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.shrink],
    )
    @given(plans=service_plans, actions=service_actions)
    def test_every_sequence_keeps_the_books_and_the_plans_as_designed(
        self, plans, actions
    ):
        # Hypothesis prints a failing example's arguments blank in a Django
        # TestCase; noted, they show.
        note(f"plans={plans!r}")
        note(f"actions={actions!r}")
        owner = make_merchant_with_key(
            allowed_schedule_types=SCHEDULES, partial_collection_min_percent=50
        )
        shoppers = {
            kind: (self.shopper(customer_id), card)
            for kind, (customer_id, card) in self.customers.items()
        }
        sequence = Sequence(owner, shoppers, plans)
        for action in actions:
            sequence.step(action)
            sequence.compare()
            # After each step: the books and check_ledger clean.
            sequence.books()

    @staticmethod
    def shopper(customer_id: str) -> Shopper:
        access = customer_jwt(Customer.objects.get(public_id=customer_id))
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {access}")
        return Shopper(customer_id=customer_id, client=client, access=access)
