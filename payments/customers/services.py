"""Customer accounts: registration, sign-in and the phone number for texts."""

from django.db import IntegrityError, transaction

from config.api import login_guard
from config.api.passwords import validate_new_password

from . import selectors
from .errors import CustomerEmailTaken
from .models import Customer
from .phones import nigerian_mobile

LOGIN_KIND = "customer"


def customer_register(
    *, email: str, password: str, first_name: str, last_name: str, phone: str
) -> Customer:
    customer = Customer(
        email=email.strip().lower(),
        first_name=first_name.strip(),
        last_name=last_name.strip(),
        phone=phone.strip(),
    )
    validate_new_password(password, account=customer)
    customer.set_password(password)
    if selectors.customer_by_email(customer.email) is not None:
        raise CustomerEmailTaken()
    try:
        with transaction.atomic():
            customer.save()
    except IntegrityError:
        raise CustomerEmailTaken() from None
    return customer


def customer_login(*, email: str, password: str, client_ip: str) -> Customer:
    return login_guard.sign_in(
        kind=LOGIN_KIND,
        email=email,
        password=password,
        client_ip=client_ip,
        lookup=selectors.customer_by_email,
    )


def customer_sms_phone_set(*, customer: Customer, sms_phone: str) -> Customer:
    """Add, change (`sms_phone`, normalized to `+234...`) or remove ("") the
    number reminders and receipts are texted to; NotANigerianMobile for a
    number that cannot receive them."""
    customer.sms_phone = nigerian_mobile(sms_phone) if sms_phone.strip() else ""
    customer.save(update_fields=["sms_phone", "updated_at"])
    return customer
