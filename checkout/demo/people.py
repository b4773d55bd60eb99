"""The demo's customers and their cards, made as the API makes them: a
registered customer, a card saved through the sandbox's card form, a checkout
session completed with its deposit."""

import secrets
from dataclasses import dataclass

from checkout.services.completion import session_complete
from checkout.services.links import payment_link_session_open
from checkout.services.sessions import session_create
from installments.deposits.consent import Consent
from installments.plans.models import PaymentPlan
from payments.customers.services import customer_register
from payments.gateway.processors import sandbox_processor
from payments.gateway.processors.sandbox.values import (
    CARD_INSUFFICIENT_FUNDS,
    CARD_SUCCEEDS,
)
from payments.methods.services.cards import card_setup_initialize, card_setup_verify
from payments.methods.services.methods import payment_method_delete

__all__ = ["CARD_INSUFFICIENT_FUNDS", "CARD_SUCCEEDS", "Shopper", "plan_open"]

# Where the sandbox's card form sends the customer back (a shop's own page).
CALLBACK_URL = "https://demo-store.example.com/cards/done"

# The demo's customers agree to the key facts as a page would record it: no
# address (nobody was at a browser), the demo named as the user agent.
DEMO_CONSENT = Consent(ip=None, user_agent="demo data (manage.py)")


@dataclass
class Shopper:
    first_name: str
    last_name: str
    phone: str

    @property
    def email(self) -> str:
        return f"{self.first_name}.{self.last_name}@mail.example.com".lower()

    def register(self) -> "Shopper":
        # Customers of the demo never sign in: their password is never shown.
        self.customer = customer_register(
            email=self.email,
            password=secrets.token_urlsafe(16),
            first_name=self.first_name,
            last_name=self.last_name,
            phone=self.phone,
        )
        return self

    def add_card(self, number: str = CARD_SUCCEEDS, *, livemode: bool = True):
        """The redirect flow: the card form of the sandbox, then verify; a test
        card (for test checkouts, docs/test-mode.md) with `livemode=False`."""
        setup = card_setup_initialize(
            customer=self.customer,
            callback_url=CALLBACK_URL,
            is_default=True,
            livemode=livemode,
        )
        # The sandbox's own card form (the demo runs only where the cards are
        # the sandbox's: `sandbox_in_use`).
        sandbox_processor().authorize_card(
            reference=setup.reference, card_number=number
        )
        return card_setup_verify(customer=self.customer, reference=setup.reference)

    def remove_card(self, method) -> None:
        payment_method_delete(customer=self.customer, public_id=method.public_id)


def plan_open(
    merchant,
    shopper: Shopper,
    method,
    *,
    amount: int,
    title: str,
    order: str,
    schedule: str,
    count: int,
    link=None,
) -> PaymentPlan:
    """A checkout session (or a payment link's), completed: the deposit paid."""
    if link is not None:
        session = payment_link_session_open(link=link)
    else:
        session = session_create(
            merchant=merchant,
            amount=amount,
            currency="NGN",
            title=title,
            order_reference=order,
            customer_email=shopper.email,
        ).session
    return session_complete(
        token=session.token,
        customer=shopper.customer,
        schedule_type=schedule,
        installment_count=count,
        payment_method_id=method.public_id,
        consent=DEMO_CONSENT,
    )
