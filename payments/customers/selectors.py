"""Reads of customer accounts."""

from config.api.ids import looks_like_public_id

from .errors import CustomerNotFound
from .models import Customer


def customer_by_public_id(public_id: str) -> Customer | None:
    """Also the customer JWT's principal loader (registered in payments/apps.py)."""
    if not looks_like_public_id(public_id, "cus"):
        return None
    return Customer.objects.filter(public_id=public_id).first()


def customer_by_email(email: str) -> Customer | None:
    return Customer.objects.filter(email__iexact=email.strip()).first()


def own_customer(principal: Customer, customer_id: str) -> Customer:
    """The signed-in customer, when `customer_id` names them; anyone else's id
    (or an unknown one) is a 404, so ids of other customers cannot be probed."""
    if customer_id != principal.public_id:
        raise CustomerNotFound()
    return principal
