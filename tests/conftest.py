from dataclasses import dataclass
from functools import cache

import pytest
from django.conf import settings
from django.test import Client
from rest_framework.test import APIClient

from config.api.auth import ROLE_CUSTOMER, ROLE_MERCHANT, issue_tokens
from merchants import services as merchant_services
from merchants.models import Merchant
from merchants.team.selectors import owner_of

from .dashboards import sign_in
from .factories import PASSWORD, CustomerFactory, MerchantFactory
from .metrics import TOKEN
from .receivers import Receiver


def pytest_collection_modifyitems(config, items):
    from django.db import connection

    skips = {}
    if connection.vendor != "postgresql":
        skips["postgres"] = pytest.mark.skip(
            reason="needs PostgreSQL row locks and concurrent writers "
            "(run with DATABASE_URL=postgres://...; .ci/run does)"
        )
    if not settings.REDIS_URL:
        skips["redis"] = pytest.mark.skip(
            reason="needs Redis as broker, cache and rate-limit store "
            "(run with REDIS_URL=redis://...; .ci/run does)"
        )
    for item in items:
        for marker, skip in skips.items():
            # The marker itself: `item.keywords` also holds the names of the
            # folders above the test (a checkout in a folder named `redis`).
            if item.get_closest_marker(marker):
                item.add_marker(skip)


@pytest.fixture(autouse=True)
def _empty_redis():
    """With REDIS_URL, every test starts on an empty Redis database, as it does on
    a fresh database: counters, the webhook gate and queued tasks live there, not
    in the rolled-back test transaction. Only the database REDIS_URL names is
    emptied; point it at one kept for tests."""
    if settings.REDIS_URL:
        redis_client().flushdb()


@pytest.fixture(autouse=True)
def sms_outbox():
    """Text messages sent by the test (tests/settings.py: SMS_URL=locmem://),
    emptied before each test as pytest-django empties `mail.outbox`."""
    from config import sms

    sms.outbox.clear()
    return sms.outbox


@pytest.fixture
def dashboard_for():
    """`dashboard_for(merchant)`: a new browser-like client signed in as them."""
    return lambda merchant: sign_in(Client(), merchant)


@pytest.fixture
def metrics_token(settings):
    """/metrics readable with tests/metrics.py's TOKEN (`scrape`)."""
    settings.METRICS_TOKEN = TOKEN


@pytest.fixture
def local_network(settings):
    """Allow what the receiver on 127.0.0.1 needs: plain http, a private address."""
    settings.WEBHOOK_ALLOW_PRIVATE_NETWORKS = True
    settings.WEBHOOK_ALLOW_HTTP = True


@pytest.fixture
def receiver(local_network):
    """A real HTTP receiver on 127.0.0.1 for merchant webhooks, closed after the
    test."""
    server = Receiver()
    yield server
    server.close()


@cache
def redis_client():
    import redis

    return redis.Redis.from_url(settings.REDIS_URL)


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


def with_test_key(owner: MerchantWithKey) -> MerchantWithKey:
    """The same account calling with a new test key: it acts on the account's
    test side (DESIGN section 21) under the account's id."""
    _, plaintext = merchant_services.api_key_rotate(
        merchant=owner.merchant, mode="test"
    )
    return MerchantWithKey(merchant=owner.merchant, api_key=plaintext)


@pytest.fixture
def merchant_with_key(db):
    return make_merchant_with_key()


@pytest.fixture
def other_merchant_with_key(db):
    return make_merchant_with_key()


def merchant_jwt(account) -> str:
    """An access token of a member, or of a merchant's first owner."""
    if isinstance(account, Merchant):
        account = owner_of(account)
    return issue_tokens(role=ROLE_MERCHANT, account=account)["access"]


def customer_jwt(customer) -> str:
    return issue_tokens(role=ROLE_CUSTOMER, account=customer)["access"]


@pytest.fixture
def customer(db):
    return CustomerFactory()
