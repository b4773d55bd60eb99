"""Plans paid with a chosen card, and the processor's word on a refund part
handed to the refund handlers."""

from django.db import transaction

from installments.plans.models import PaymentPlan
from installments.refunds.models import RefundPart
from payments.gateway.services.refunds import RefundOutcome, refund_outcome_dispatch

from ..checkout.conftest import add_card, complete, open_session, register
from ..conftest import make_merchant_with_key
from .conftest import (
    PlanSetup,
)


def plan_paid_with(card_number: str) -> PlanSetup:
    owner = make_merchant_with_key()
    shopper = register("ada@mail.example.com")
    card = add_card(shopper, card_number)
    response = complete(shopper, open_session(owner), card)
    assert response.status_code == 201, response.content
    plan = PaymentPlan.objects.get(public_id=response.json()["data"]["id"])
    return PlanSetup(owner=owner, shopper=shopper, plan=plan)


def dispatch(part: RefundPart, status: str) -> list[str]:
    """The processor's word on a part, handed to the refund handlers as the
    gateway does (endpoint 24, the sandbox's pass, the poll)."""
    with transaction.atomic():
        return refund_outcome_dispatch(
            RefundOutcome(
                reference=part.reference,
                transaction_reference=part.collection_reference,
                refund_id=f"rfd_{part.pk}",
                amount=part.amount,
                status=status,
                processor_status=status,
            )
        )
