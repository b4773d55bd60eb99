"""Customer accounts: registration and sign-in."""

from config.accounts import AccountKind

from . import selectors
from .errors import CustomerEmailTaken
from .models import Customer

CUSTOMERS = AccountKind("customer", selectors.customer_by_email, CustomerEmailTaken)


def customer_register(
    *, email: str, password: str, first_name: str, last_name: str, phone: str
) -> Customer:
    customer = Customer(
        first_name=first_name.strip(), last_name=last_name.strip(), phone=phone.strip()
    )
    return CUSTOMERS.register(customer, email=email, password=password)


def customer_login(*, email: str, password: str, client_ip: str) -> Customer:
    return CUSTOMERS.sign_in(email=email, password=password, client_ip=client_ip)
