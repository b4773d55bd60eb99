"""A shopper's payment methods changed through the API, and a plan's failed
collections as its `payment.failed` events report them."""

from webhooks.models import Event

from ..checkout.conftest import add_card


def methods_of(setup) -> list[dict]:
    response = setup.shopper.get(
        f"/api/v1/payment-methods/customers/{setup.shopper.customer_id}"
    )
    assert response.status_code == 200, response.content
    return response.json()["data"]


def make_default(setup, method_id: str) -> None:
    response = setup.shopper.client.put(f"/api/v1/payment-methods/{method_id}/default")
    assert response.status_code == 200, response.content


def delete(setup, method_id: str) -> None:
    response = setup.shopper.client.delete(f"/api/v1/payment-methods/{method_id}")
    assert response.status_code == 200, response.content


def only_card(setup, number: str) -> str:
    """After the deposit: the shopper adds this card as their default and removes
    every other method."""
    card = add_card(setup.shopper, number)
    make_default(setup, card)
    for method in methods_of(setup):
        if method["id"] != card:
            delete(setup, method["id"])
    return card


def failures(plan) -> list[dict]:
    return [
        event.data
        for event in Event.objects.filter(
            merchant=plan.merchant, event_type="payment.failed"
        ).order_by("id")
    ]
