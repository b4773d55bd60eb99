"""Plans made the way customers make them: through checkout completion."""

from dataclasses import dataclass

import pytest

from installments.models import PaymentPlan

from ..checkout.conftest import Shopper, add_card, complete, open_session, register
from ..conftest import MerchantWithKey, make_merchant_with_key


@dataclass
class PlanSetup:
    owner: MerchantWithKey
    shopper: Shopper
    plan: PaymentPlan

    @property
    def url(self) -> str:
        return f"/api/v1/payment-plans/{self.plan.public_id}"


def make_active_plan(owner=None, email="ada@mail.example.com", **session) -> PlanSetup:
    owner = owner or make_merchant_with_key()
    shopper = register(email)
    card = add_card(shopper)
    token = open_session(owner, **session)
    response = complete(shopper, token, card)
    assert response.status_code == 201, response.content
    plan = PaymentPlan.objects.get(public_id=response.json()["data"]["id"])
    return PlanSetup(owner=owner, shopper=shopper, plan=plan)


@pytest.fixture
def plan_active(db) -> PlanSetup:
    return make_active_plan()
