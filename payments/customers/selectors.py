"""Reads of customer accounts."""

from config.api.ids import row_by_public_id

from .errors import CustomerNotFound
from .models import Customer
from .phones import NotANigerianMobile, nigerian_mobile


def customer_by_public_id(public_id: str) -> Customer | None:
    """Also the customer JWT's principal loader (registered in payments/apps.py)."""
    return row_by_public_id(Customer.objects, public_id, "cus")


def customer_by_email(email: str) -> Customer | None:
    return Customer.objects.filter(
        email__iexact=email.strip(), erased_at__isnull=True
    ).first()


def own_customer(principal: Customer, customer_id: str) -> Customer:
    """The signed-in customer, when `customer_id` names them; anyone else's id
    (or an unknown one) is a 404, so ids of other customers cannot be probed."""
    if customer_id != principal.public_id:
        raise CustomerNotFound()
    return principal


def sms_number_suggested(customer: Customer) -> str:
    """What the profile's form starts with: the texting number, else the
    registration phone when it is a Nigerian mobile (the customer still has to
    save it)."""
    if customer.sms_phone:
        return customer.sms_phone
    try:
        return nigerian_mobile(customer.phone)
    except NotANigerianMobile:
        return ""
