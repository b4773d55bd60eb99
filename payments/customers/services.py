"""Customer accounts: registration, sign-in and the phone number for texts."""

from config.accounts import AccountKind

from . import selectors
from .errors import CustomerEmailTaken
from .models import Customer
from .phones import nigerian_mobile

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


def customer_sms_phone_set(*, customer: Customer, sms_phone: str) -> Customer:
    """Add, change (`sms_phone`, normalized to `+234...`) or remove ("") the
    number reminders and receipts are texted to; NotANigerianMobile for a
    number that cannot receive them."""
    customer.sms_phone = nigerian_mobile(sms_phone) if sms_phone.strip() else ""
    customer.save(update_fields=["sms_phone", "updated_at"])
    return customer
