"""The customer API names a method's side (docs/test-mode.md, "Customers and
their methods"): `livemode: false` on initialize-card saves a test card at the
sandbox, even beside Paystack, and the list shows one side at a time."""

import pytest

from payments.models import LedgerLine, LedgerTransaction, PaymentMethod

from ..checkout.conftest import add_card, register

pytestmark = pytest.mark.django_db


def listed(shopper, query=""):
    response = shopper.client.get(
        f"/api/v1/payment-methods/customers/{shopper.customer_id}{query}"
    )
    assert response.status_code == 200, response.content
    return [(m["id"], m["livemode"]) for m in response.json()["data"]]


def test_a_test_card_is_saved_at_the_sandbox_beside_paystack(paystack):
    shopper = register("tolu@mail.example.com")

    method_id = add_card(shopper, livemode=False)

    method = PaymentMethod.objects.get(public_id=method_id)
    assert (method.livemode, method.processor) == (False, "sandbox")
    assert [call.request.url for call in paystack.calls] == []  # none to Paystack


def test_the_list_shows_one_side_at_a_time():
    shopper = register("tolu@mail.example.com")
    live_id = add_card(shopper)
    test_id = add_card(shopper, livemode=False)

    assert listed(shopper) == [(live_id, True)]
    assert listed(shopper, "?livemode=true") == [(live_id, True)]
    assert listed(shopper, "?livemode=false") == [(test_id, False)]


def test_a_side_that_is_not_a_boolean_is_a_400():
    shopper = register("tolu@mail.example.com")

    response = shopper.client.get(
        f"/api/v1/payment-methods/customers/{shopper.customer_id}?livemode=maybe"
    )
    started = shopper.post(
        "/api/v1/payment-methods/initialize-card",
        {
            "customer_id": shopper.customer_id,
            "callback_url": "https://shop.example.com/back",
            "livemode": "no",
        },
    )

    assert response.status_code == 400
    assert "livemode" in response.json()["errors"]
    assert started.status_code == 400
    assert "livemode" in started.json()["errors"]
    assert not PaymentMethod.objects.exists()


def test_a_test_cards_verification_charge_is_posted_on_the_test_side(committed):
    """The 5,000 kobo verification charge of a test card, and its refund, move
    the test side's accounts only: the live books never hold test money."""
    shopper = register("tolu@mail.example.com")

    with committed():
        add_card(shopper, livemode=False)

    posted = LedgerTransaction.objects.filter(
        kind__in=("verification_charge", "verification_refund")
    )
    assert sorted(posted.values_list("kind", "livemode")) == [
        ("verification_charge", False),
        ("verification_refund", False),
    ]
    accounts = set(
        LedgerLine.objects.filter(transaction__in=posted).values_list(
            "account", flat=True
        )
    )
    assert accounts and all(account.startswith("test:") for account in accounts)
