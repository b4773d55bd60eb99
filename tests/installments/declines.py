"""Plans bought on a fixed day with chosen cards, and the engine's declines on
them (the clock moved to Lagos times)."""

from contextlib import contextmanager
from datetime import date, datetime, time

import time_machine
from django.utils import timezone

from installments.collection import PassSummary
from installments.plans.models import Installment, PaymentPlan
from payments.models import PaymentMethod, SandboxTransaction

from ..checkout.conftest import (
    CARD_OK,
    add_card,
    complete,
    open_session,
    register,
)
from ..conftest import make_merchant_with_key
from .conftest import PlanSetup, collect, installments_of
from .failed_collections import delete, make_default

BOUGHT_ON = date(2026, 3, 25)


def lagos(day: date, hour: int = 9, minute: int = 0) -> datetime:
    return timezone.make_aware(datetime.combine(day, time(hour, minute)))


@contextmanager
def on(day: date, hour: int = 9, minute: int = 0):
    with time_machine.travel(lagos(day, hour, minute), tick=False):
        yield


def collect_now(committed) -> PassSummary:
    """One engine pass as of now (the schedule's), its on-commit work done."""
    with committed():
        return collect()


def bought_with(
    *cards: str, default: str | None = None, remove: tuple[str, ...] = ()
) -> PlanSetup:
    """On BOUGHT_ON: a shopper saves these cards (the first pays the deposit)
    and buys on 3 monthly installments; `default` then becomes the default and
    the cards of `remove` are deleted."""
    with on(BOUGHT_ON, 12):
        owner = make_merchant_with_key()
        shopper = register("ada@mail.example.com")
        ids = {number: add_card(shopper, number) for number in cards}
        response = complete(shopper, open_session(owner), ids[cards[0]])
        assert response.status_code == 201, response.content
        plan = PaymentPlan.objects.get(public_id=response.json()["data"]["id"])
        setup = PlanSetup(owner=owner, shopper=shopper, plan=plan)
        if default:
            make_default(setup, ids[default])
        for number in remove:
            delete(setup, ids[number])
    return setup


def method_of(setup: PlanSetup, number: str) -> PaymentMethod:
    return PaymentMethod.objects.get(
        customer_id=setup.plan.customer_id, last4=number[-4:]
    )


def charges_with(method: PaymentMethod):
    """Every charge the processor was asked to make on this authorization."""
    return SandboxTransaction.objects.filter(
        kind=SandboxTransaction.Kind.AUTHORIZATION_CHARGE,
        authorization__authorization_code=method.authorization_code,
    )


def add_card_later(setup: PlanSetup, number: str = CARD_OK) -> str:
    """The customer comes back (a fresh sign-in) and saves another card."""
    setup.shopper.sign_in_again()
    return add_card(setup.shopper, number)


def wait_for_method(setup: PlanSetup, committed) -> Installment:
    """The first installment's first attempt, on its due date: hard declined."""
    first = installments_of(setup.plan)[0]
    assert first.due_date.month > BOUGHT_ON.month
    with on(first.due_date):
        collect_now(committed)
    first.refresh_from_db()
    return first
