"""The staff admin (DESIGN §12) never shows key material or a webhook secret:
every changelist and every change page of every registered model is rendered
with data from real flows (a plan refunded among them), and no secret appears
in any of them. The ledger is read-only there."""

from io import StringIO

import pytest
from django.contrib import admin
from django.core.management import call_command
from django.urls import reverse
from rest_framework.test import APIClient

from merchants.models import ApiKey
from merchants.team.selectors import owner_of
from payments.models import (
    InboundRequest,
    LedgerTransaction,
    PaymentMethod,
    SandboxAuthorization,
)
from webhooks.models import Event
from webhooks.services import event_replay

from ..conftest import make_merchant_with_key
from ..installments.conftest import make_active_plan, refund
from ..payments.conftest import credit_wallet, set_payout_account, signed_post
from ..webhooks.conftest import SECRET

pytestmark = pytest.mark.django_db

CHANGE_PAGES_PER_MODEL = 5


@pytest.fixture
def world(receiver, committed):
    """A merchant with a key and a webhook secret, a customer with a card and a
    plan, delivered and replayed events, ledger postings, a payout, and a stored
    Paystack callback naming an authorization code."""
    owner = make_merchant_with_key(webhook_url=receiver.url, webhook_secret=SECRET)
    with committed():
        setup = make_active_plan(owner)
        # A refund that reduces installments and pays money back (parts).
        assert refund(setup, 200_000).status_code == 201
    for event in Event.objects.filter(merchant=owner.merchant)[:2]:
        event_replay(event=event)
    set_payout_account(owner.merchant)
    credit_wallet(owner.merchant, 500_000)
    with committed():
        call_command("run_payouts", stdout=StringIO())
    method = PaymentMethod.objects.get(customer__public_id=setup.shopper.customer_id)
    signed_post(
        APIClient(),
        "/api/v1/webhooks/paystack",
        {
            "event": "charge.success",
            "data": {
                "reference": "not_ours_1",
                "amount": 10_000,
                "authorization": {"authorization_code": method.authorization_code},
            },
        },
    )
    merchant = owner.merchant
    merchant.refresh_from_db()
    secrets = {
        "API key": owner.api_key,
        "API key hash": ApiKey.objects.get(merchant=merchant).key_hash,
        "webhook secret": SECRET,
        "member password hash": owner_of(merchant).password,
        "customer password hash": setup.shopper.customer.password,
    }
    for number, code in enumerate(
        SandboxAuthorization.objects.values_list("authorization_code", flat=True)
    ):
        secrets[f"authorization code {number}"] = code
    return secrets


def test_no_admin_page_shows_a_key_a_secret_or_a_password_hash(admin_client, world):
    pages = []
    for model, model_admin in admin.site._registry.items():
        info = (model._meta.app_label, model._meta.model_name)
        pages.append(reverse("admin:{}_{}_changelist".format(*info)))
        for pk in model._default_manager.values_list("pk", flat=True)[
            :CHANGE_PAGES_PER_MODEL
        ]:
            pages.append(reverse("admin:{}_{}_change".format(*info), args=[pk]))
    # The flows above filled the models that hold secrets.
    assert any(
        "/merchants/merchant/" in page and page.endswith("/change/") for page in pages
    )
    assert any(
        "/payments/paymentmethod/" in page and page.endswith("/change/")
        for page in pages
    )
    assert any(
        "/payments/inboundrequest/" in page and page.endswith("/change/")
        for page in pages
    )
    assert any(
        "/installments/refund/" in page and page.endswith("/change/") for page in pages
    )

    leaks = []
    for page in pages:
        response = admin_client.get(page)
        assert response.status_code == 200, page
        content = response.content.decode()
        leaks += [
            f"{name} on {page}" for name, value in world.items() if value in content
        ]

    assert leaks == []


def test_a_stored_processor_callback_shows_its_authorization_code_masked(
    admin_client, world
):
    inbound = InboundRequest.objects.get(event="charge.success")
    code = world["authorization code 0"]

    page = admin_client.get(
        reverse("admin:payments_inboundrequest_change", args=[inbound.pk])
    ).content.decode()

    assert f"&quot;authorization_code&quot;: &quot;{code[:5]}…{code[-4:]}&quot;" in page
    assert code not in page


def test_the_ledger_cannot_be_added_to_changed_or_deleted_in_the_admin(
    admin_client, world
):
    txn = LedgerTransaction.objects.filter(kind="collection").first()
    change = f"/admin/payments/ledgertransaction/{txn.pk}/change/"

    page = admin_client.get(change).content.decode()

    assert 'name="_save"' not in page
    assert admin_client.get("/admin/payments/ledgertransaction/add/").status_code == (
        403
    )
    assert admin_client.post(change, {"description": "edited"}).status_code == 403
    deleted = admin_client.post(
        f"/admin/payments/ledgertransaction/{txn.pk}/delete/", {"post": "yes"}
    )
    assert deleted.status_code == 403
    listing = admin_client.get("/admin/payments/ledgertransaction/").content
    assert b'value="delete_selected"' not in listing
    txn.refresh_from_db()
    assert txn.description != "edited"
