"""Customer accounts: registration, sign-in (by password or by a one-time
code), a new password and the phone number for texts."""

from ipaddress import ip_address

from django.db import transaction
from django.utils import timezone

from config.accounts import AccountKind
from config.api import login_guard
from config.text import one_line

from . import selectors
from .codes import sign_in_code_check
from .errors import CustomerEmailTaken, SignInCodeWrong
from .models import USER_AGENT_LENGTH, Customer, CustomerSignIn, SignInCode
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


def customer_login_by_code(*, email: str, code: str, client_ip: str) -> Customer:
    """Sign in with the code e-mailed and texted to the account of `email`,
    under the password sign-in's throttles (config.api.login_guard: per client
    address, and 5 failures per account in 15 minutes, passwords and codes
    together). An unknown address and a wrong, used, expired or locked code get
    the same SignInCodeWrong."""
    kind = CUSTOMERS.name
    login_guard.check_login_allowed(kind=kind, email=email, client_ip=client_ip)
    customer = selectors.customer_by_email(email)
    if customer is None or not sign_in_code_check(
        customer=customer, code=code, purpose=SignInCode.Purpose.SIGN_IN
    ):
        login_guard.record_login_failure(kind=kind, email=email)
        raise SignInCodeWrong()
    return customer


def customer_set_password(*, customer: Customer, password: str) -> Customer:
    """Store a new password (the caller ran Django's validators). Every session
    stamped with the old password hash ends, and so does every access and
    refresh token issued before (the credential version moves on; the row lock
    keeps two concurrent changes from landing on one version)."""
    with transaction.atomic():
        customer = Customer.objects.select_for_update().get(pk=customer.pk)
        customer.set_password(password)
        customer.save(update_fields=["password", "credential_version", "updated_at"])
    return customer


def customer_sms_phone_set(
    *, customer: Customer, sms_phone: str, source: str
) -> Customer:
    """Add, change (`sms_phone`, normalized to `+234...`) or remove ("") the
    number reminders and receipts are texted to; NotANigerianMobile for a
    number that cannot receive them. Adding or changing it is the customer's
    consent to texts, recorded with when and the page it was given on
    (`source`); removing it turns texts off and clears the consent."""
    number = nigerian_mobile(sms_phone) if sms_phone.strip() else ""
    if number != customer.sms_phone:
        customer.sms_consent_at = timezone.now() if number else None
        customer.sms_consent_source = source if number else ""
    customer.sms_phone = number
    customer.save(
        update_fields=[
            "sms_phone",
            "sms_consent_at",
            "sms_consent_source",
            "updated_at",
        ]
    )
    return customer


def customer_sign_in_record(
    *, customer: Customer, how: str, ip: str | None, user_agent: str
) -> CustomerSignIn:
    """Note a sign-in of `customer` (DESIGN section 18). `ip` as the
    throttles take it (config.api.login_guard.client_ip; anything that is not
    an address is stored as none); the user agent on one line, cut to 255."""
    return CustomerSignIn.objects.create(
        customer=customer,
        at=timezone.now(),
        ip=_address(ip),
        user_agent=one_line(user_agent or "", USER_AGENT_LENGTH),
        how=how,
    )


def _address(ip: str | None) -> str | None:
    try:
        return str(ip_address((ip or "").strip()))
    except ValueError:
        return None
