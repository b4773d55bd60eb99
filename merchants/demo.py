"""The demo accounts `make run` creates (`manage.py seed_demo`): a staff user for
/admin/ and an approved merchant with API access. Their passwords are generated,
shown once when created, and can be replaced (`seed_demo --reset-password`).

The demo merchant's month of data is seeded above this app (`checkout/demo/`),
where every service it drives can be imported.
"""

import secrets

from django.contrib.auth import get_user_model
from django.db import transaction

from . import selectors, services
from .models import Merchant
from .team import selectors as team_selectors
from .team import services as team_services

STAFF_USERNAME = "admin"
STAFF_EMAIL = "admin@example.com"
DEMO_MERCHANT_EMAIL = "demo-merchant@example.com"
DEMO_BUSINESS_NAME = "Demo Store"
DEMO_BUSINESS_URL = "https://demo-store.example.com"


def new_password() -> str:
    return secrets.token_urlsafe(12)


def staff_user_ensure() -> str | None:
    """Create the staff user; its password, or None when it already existed."""
    User = get_user_model()
    with transaction.atomic():
        if User.objects.filter(username=STAFF_USERNAME).exists():
            return None
        password = new_password()
        User.objects.create_superuser(STAFF_USERNAME, STAFF_EMAIL, password)
    return password


def demo_merchant() -> Merchant | None:
    return selectors.merchant_by_email(DEMO_MERCHANT_EMAIL)


def demo_merchant_ensure() -> tuple[Merchant, str | None]:
    """The demo merchant, approved with API access; with its password when this
    call created it (None when it already existed)."""
    merchant = demo_merchant()
    if merchant is not None:
        return merchant, None
    password = new_password()
    merchant = services.merchant_create(
        email=DEMO_MERCHANT_EMAIL,
        password=password,
        business_name=DEMO_BUSINESS_NAME,
        business_url=DEMO_BUSINESS_URL,
    )
    merchant = services.merchant_approve(merchant=merchant)
    merchant = services.merchant_set_api_access(merchant=merchant, enabled=True)
    return merchant, password


def demo_password_reset() -> tuple[Merchant, str]:
    """A new password for the demo merchant (created first when missing), for
    the one who lost the line `make run` printed. Dashboard sessions and tokens
    signed with the old one stop working."""
    merchant, password = demo_merchant_ensure()
    if password is None:
        password = new_password()
        team_services.member_set_password(
            member=team_selectors.owner_of(merchant), password=password
        )
    return merchant, password
