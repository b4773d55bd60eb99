"""A merchant's first month through the API and the engine (the wallet story)."""

from dataclasses import dataclass
from io import StringIO

from django.core.cache import cache
from django.core.management import call_command
from rest_framework.test import APIClient

from installments.plans.models import Installment, PaymentPlan
from payments.models import Payout

from ..checkout.conftest import (
    CARD_POOR,
    add_card,
    complete,
    open_session,
    register,
)
from ..conftest import make_merchant_with_key
from ..payments.conftest import set_payout_account
from .conftest import PlanSetup, collect, installments_of
from .failed_collections import make_default

ORDER_AMOUNT = 400_000


@dataclass
class WalletStory:
    setup: PlanSetup
    payout: Payout
    first: Installment
    answer: dict  # endpoint 9's whole answer


def wallet_story(committed) -> WalletStory:
    """A merchant's first month, through the API and the engine: the deposit's
    first card declines and a second pays it; the daily payout pays it out; the
    first installment's default card (the declining one) fails and the other
    card pays it."""
    cache.clear()  # the bank list is cached; the payout account looks it up
    owner = make_merchant_with_key()
    set_payout_account(owner.merchant)
    shopper = register("ada@mail.example.com")
    poor = add_card(shopper, CARD_POOR)
    token = open_session(owner, amount=ORDER_AMOUNT, order_reference="ORD-2041")
    assert complete(shopper, token, poor).status_code == 402
    response = complete(shopper, token, add_card(shopper))
    assert response.status_code == 201, response.content
    plan = PaymentPlan.objects.get(public_id=response.json()["data"]["id"])
    setup = PlanSetup(owner=owner, shopper=shopper, plan=plan)
    with committed():
        call_command("run_payouts", stdout=StringIO())
    make_default(setup, poor)
    first = installments_of(plan)[0]
    assert collect(first.due_date).tally.paid == 1
    first.refresh_from_db()
    answer = APIClient().get(
        f"/api/v1/merchant/{owner.merchant.public_id}/wallet", **owner.headers
    )
    assert answer.status_code == 200, answer.content
    return WalletStory(
        setup=setup,
        payout=Payout.objects.get(merchant=owner.merchant),
        first=first,
        answer=answer.json(),
    )
