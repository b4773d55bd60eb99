from dataclasses import dataclass

import pytest
from rest_framework.test import APIClient

from config.api.auth import ROLE_CUSTOMER, ROLE_MERCHANT, issue_tokens
from merchants import services as merchant_services
from merchants.models import Merchant

from .factories import PASSWORD, CustomerFactory, MerchantFactory


def pytest_collection_modifyitems(config, items):
    from django.db import connection

    if connection.vendor == "postgresql":
        return
    skip = pytest.mark.skip(
        reason="needs PostgreSQL row locks and concurrent writers "
        "(run with DATABASE_URL=postgres://...; .ci/run does)"
    )
    for item in items:
        if "postgres" in item.keywords:
            item.add_marker(skip)


@pytest.fixture
def committed(django_capture_on_commit_callbacks):
    """`with committed(): ...` runs the block's on-commit work (e-mails, task
    enqueues) as a real commit would."""
    return lambda: django_capture_on_commit_callbacks(execute=True)


@pytest.fixture
def api():
    return APIClient()


def bearer(token: str) -> dict:
    return {"HTTP_AUTHORIZATION": f"Bearer {token}"}


@dataclass
class MerchantWithKey:
    merchant: Merchant
    api_key: str

    @property
    def headers(self) -> dict:
        return bearer(self.api_key)


@pytest.fixture
def password():
    return PASSWORD


@pytest.fixture
def merchant_pending(db):
    return MerchantFactory()


@pytest.fixture
def merchant_approved(db):
    """Approved, API access not yet enabled."""
    return MerchantFactory(status=Merchant.Status.ACTIVE)


@pytest.fixture
def merchant_active(db):
    """Approved with API access enabled, no key yet."""
    return MerchantFactory(status=Merchant.Status.ACTIVE, api_access_enabled=True)


def make_merchant_with_key(**fields) -> MerchantWithKey:
    merchant = MerchantFactory(
        status=Merchant.Status.ACTIVE, api_access_enabled=True, **fields
    )
    _, plaintext = merchant_services.api_key_rotate(merchant=merchant)
    return MerchantWithKey(merchant=merchant, api_key=plaintext)


@pytest.fixture
def merchant_with_key(db):
    return make_merchant_with_key()


@pytest.fixture
def other_merchant_with_key(db):
    return make_merchant_with_key()


def merchant_jwt(merchant) -> str:
    return issue_tokens(role=ROLE_MERCHANT, account=merchant)["access"]


def customer_jwt(customer) -> str:
    return issue_tokens(role=ROLE_CUSTOMER, account=customer)["access"]


@pytest.fixture
def customer(db):
    return CustomerFactory()
