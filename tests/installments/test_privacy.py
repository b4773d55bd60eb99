"""The customer's data (DESIGN section 18): sign-in records, SMS consent,
`/account/privacy/` (download everything, erase it), and the admin's actions.

The big one builds a customer's whole history through the services (checkout,
collection to the end, a refund, messages, sign-ins by every way, a webhook
delivered), erases them, then scans every text column of every model for what
identified them."""

import json
import re

import pytest
import time_machine
from django.apps import apps
from django.contrib.admin.sites import site
from django.db import connection, models
from django.db.models import Sum
from django.test import Client, RequestFactory
from rest_framework.test import APIClient

from installments.agreements.models import Agreement
from installments.notifications.models import Message
from installments.plans.models import PaymentPlan
from installments.privacy.erasure import customer_erase
from installments.privacy.errors import ErasureRefused
from installments.privacy.export import customer_data_export
from installments.signin.services import password_reset_send, sign_in_code_send
from payments.customers.codes import sign_in_code_issue
from payments.customers.models import Customer, CustomerSignIn, SignInCode
from payments.customers.resets import password_reset_link
from payments.customers.tasks import purge_sign_ins
from payments.gateway.errors import ProcessorError
from payments.gateway.models import SandboxAuthorization
from payments.gateway.processors.sandbox import SandboxProcessor
from payments.ledger.models import LedgerLine
from payments.ledger.selectors import wallet_balances
from payments.methods.models import PaymentMethod
from webhooks.delivery import deliver_due
from webhooks.models import Delivery

from ..checkout.conftest import Shopper, add_card, complete, open_session
from ..conftest import make_merchant_with_key
from ..factories import PASSWORD, CustomerFactory
from ..webhooks.conftest import SECRET
from .conftest import (
    PlanSetup,
    check_ledger,
    collect,
    installments_of,
    make_active_plan,
    refund,
    sandbox_refunds_settle,
)

pytestmark = pytest.mark.django_db

EMAIL = "chidimma.privacy@mail.example.com"
FIRST, LAST = "Chidimmaprivacy", "Okwuosatest"
PHONE, SMS = "+2348035550101", "+2348035550102"
IP_API, IP_WEB, IP_TERMS = "203.0.113.77", "198.51.100.23", "192.0.2.45"
UA_API = "PrivacyTestApp/9.1 (api)"
UA_WEB = "Mozilla/5.0 PrivacyTestBrowser/7.3"
UA_TERMS = "Mozilla/5.0 PrivacyTermsBrowser/2.2"


def api_client() -> APIClient:
    return APIClient(REMOTE_ADDR=IP_API, HTTP_USER_AGENT=UA_API)


def web_client() -> Client:
    return Client(REMOTE_ADDR=IP_WEB, HTTP_USER_AGENT=UA_WEB)


def registered() -> Shopper:
    client = api_client()
    response = client.post(
        "/api/v1/auth/customer/register",
        {
            "email": EMAIL,
            "password": PASSWORD,
            "first_name": FIRST,
            "last_name": LAST,
            "phone": PHONE,
        },
        format="json",
    )
    assert response.status_code == 201, response.content
    data = response.json()["data"]
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {data['access']}")
    return Shopper(
        customer_id=data["customer_id"], client=client, access=data["access"]
    )


def web_signed_in() -> Client:
    client = web_client()
    response = client.post("/account/login/", {"email": EMAIL, "password": PASSWORD})
    assert response.status_code == 303, response.content
    return client


@pytest.fixture
def history(db, receiver, django_capture_on_commit_callbacks):
    """A customer with a completed plan, a refund, messages, sign-ins by API,
    web and code, SMS consent, and the merchant's webhooks delivered."""
    owner = make_merchant_with_key(webhook_url=receiver.url, webhook_secret=SECRET)
    shopper = registered()
    with django_capture_on_commit_callbacks(execute=True):
        card = add_card(shopper)
        client = web_signed_in()
        assert client.post("/account/profile/", {"sms_phone": SMS}).status_code == 303
        # The consent to the key facts comes from this address and browser:
        # the deposit attempt and the agreement record keep them.
        shopper.client.defaults.update(REMOTE_ADDR=IP_TERMS, HTTP_USER_AGENT=UA_TERMS)
        response = complete(shopper, open_session(owner), card)
    assert response.status_code == 201, response.content
    plan = PaymentPlan.objects.get(public_id=response.json()["data"]["id"])
    agreement = Agreement.objects.get(plan=plan)
    assert (agreement.ip, agreement.user_agent) == (IP_TERMS, UA_TERMS)
    with django_capture_on_commit_callbacks(execute=True):
        for row in installments_of(plan):
            collect(row.due_date)
    plan.refresh_from_db()
    assert plan.status == PaymentPlan.Status.COMPLETED
    with django_capture_on_commit_callbacks(execute=True):
        assert refund(
            PlanSetup(owner=owner, shopper=shopper, plan=plan),
            1_000,
            reason=f"Returned by {FIRST} {LAST}",
        ).status_code in (200, 201)
        sandbox_refunds_settle()
        customer = Customer.objects.get(public_id=shopper.customer_id)
        sign_in_code_send(customer=customer)
        password_reset_send(email=EMAIL)
    (code_message,) = Message.objects.filter(
        customer=customer, kind=Message.Kind.SIGN_IN_CODE, channel="email"
    )
    (code,) = re.findall(r"\b\d{6}\b", code_message.body)
    response = web_client().post(
        "/account/login/code/enter/", {"email": EMAIL, "code": code}
    )
    assert response.status_code == 303
    deliver_due(budget_seconds=10)
    assert Delivery.objects.filter(status="delivered").exists()
    return {"owner": owner, "shopper": shopper, "plan": plan}


def text_columns():
    """(model, field) of every text, JSON and address column in the database."""
    kinds = (
        models.CharField,
        models.TextField,
        models.EmailField,
        models.JSONField,
        models.GenericIPAddressField,
    )
    for model in apps.get_models():
        if model._meta.proxy or not model._meta.managed:
            continue
        for field in model._meta.concrete_fields:
            if isinstance(field, kinds):
                yield model, field


def found_anywhere(needles) -> list[str]:
    """Every (table.column: needle) whose stored text holds a needle, read
    with raw SQL (JSON cast to text), so no field's Python conversion hides it."""
    hits = []
    with connection.cursor() as cursor:
        for model, field in text_columns():
            table = connection.ops.quote_name(model._meta.db_table)
            column = connection.ops.quote_name(field.column)
            cast = f"CAST({column} AS TEXT)"
            cursor.execute(f"SELECT {cast} FROM {table} WHERE {column} IS NOT NULL")
            for (value,) in cursor.fetchall():
                for needle in needles:
                    if needle.lower() in str(value).lower():
                        hits.append(f"{model._meta.db_table}.{field.column}: {needle}")
    return hits


def ledger_totals() -> dict:
    return dict(
        LedgerLine.objects.values_list("account")
        .annotate(total=Sum("amount"))
        .values_list("account", "total")
    )


IDENTIFYING = [
    EMAIL,
    FIRST,
    LAST,
    PHONE,
    SMS,
    IP_API,
    IP_WEB,
    IP_TERMS,
    UA_API,
    UA_WEB,
    UA_TERMS,
]


def test_the_history_holds_every_identifying_detail_before_the_erasure(history):
    assert set(IDENTIFYING) <= {
        needle
        for hit in found_anywhere(IDENTIFYING)
        for needle in [hit.split(": ", 1)[1]]
    }


def test_an_erasure_leaves_nothing_that_identifies_the_customer_and_money_unchanged(
    history, django_capture_on_commit_callbacks
):
    owner, shopper = history["owner"], history["shopper"]
    customer = shopper.customer
    assert "clean" in check_ledger()
    wallet, totals = wallet_balances(owner.merchant), ledger_totals()
    reference_count = PaymentPlan.objects.filter(customer=customer).count()

    with django_capture_on_commit_callbacks(execute=True):
        erased = customer_erase(customer=customer)

    assert erased.erased_at is not None
    hits = found_anywhere(IDENTIFYING)
    assert hits == [], "\n".join(hits)
    assert "clean" in check_ledger()
    assert wallet_balances(owner.merchant) == wallet
    assert ledger_totals() == totals
    assert PaymentPlan.objects.filter(customer=customer).count() == reference_count
    assert not PaymentMethod.objects.filter(
        customer=customer, status=PaymentMethod.Status.ACTIVE
    ).exists()
    messages = Message.objects.filter(customer=customer)
    assert messages.exists() and set(messages.values_list("body", flat=True)) == {
        "[erased]"
    }
    # Sign-in is impossible: the old JWT, the password, a code, a reset link.
    assert shopper.get("/api/v1/customers/me").status_code == 401
    response = web_client().post(
        "/account/login/", {"email": EMAIL, "password": PASSWORD}
    )
    assert response.status_code != 303
    placeholder = Customer.objects.get(pk=customer.pk).email
    assert placeholder.endswith("@erased.invalid")
    response = web_client().post(
        "/account/login/", {"email": placeholder, "password": PASSWORD}
    )
    assert response.status_code != 303
    response = web_client().post(
        "/account/login/code/enter/", {"email": EMAIL, "code": "123456"}
    )
    assert response.status_code != 303
    assert password_reset_link(email=EMAIL) is None
    assert password_reset_link(email=placeholder) is None


def database_dump() -> dict:
    return {
        model._meta.label: list(model.objects.order_by("pk").values())
        for model in apps.get_models()
        if not model._meta.proxy and model._meta.managed
    }


def test_an_erasure_is_refused_while_a_plan_is_active_and_changes_nothing(
    db, django_capture_on_commit_callbacks
):
    setup = make_active_plan(email="obi.refused@mail.example.com")
    customer = setup.shopper.customer
    before = database_dump()

    with pytest.raises(ErasureRefused) as refused:
        customer_erase(customer=customer)

    assert setup.plan.public_id in refused.value.message
    assert "still open" in refused.value.message
    assert database_dump() == before


def test_an_erasure_is_refused_while_a_refund_is_not_final(db):
    setup = make_active_plan(email="obi.refund@mail.example.com")
    for row in installments_of(setup.plan):
        collect(row.due_date)
    assert refund(setup, 1_000).status_code in (200, 201)
    # The sandbox has not settled it: the money is still on its way.
    with pytest.raises(ErasureRefused, match="refund"):
        customer_erase(customer=setup.shopper.customer)
    sandbox_refunds_settle()
    assert customer_erase(customer=setup.shopper.customer).erased_at is not None


def test_the_export_holds_each_kind_of_data_and_no_secret(
    history, django_capture_on_commit_callbacks
):
    customer = history["shopper"].customer
    other = make_active_plan(email="someone.else@mail.example.com")
    document = customer_data_export(customer)
    raw = json.dumps(document, default=str)

    assert document["profile"]["email"] == EMAIL
    assert document["sms"]["number"] == SMS
    assert document["sms"]["consent_source"] == "account_profile"
    assert {row["how"] for row in document["sign_ins"]} >= {"jwt", "password", "code"}
    for section in (
        "plans",
        "installments",
        "deposit_payments",
        "refunds",
        "saved_methods",
        "messages",
    ):
        assert document[section], section
    [agreement] = document["agreements"]
    record = Agreement.objects.get(plan=history["plan"])
    assert agreement["payment_plan_id"] == history["plan"].public_id
    assert agreement["document_sha256"] == record.document_sha256
    assert agreement["key_facts"]["deposit"] == history["plan"].deposit_amount
    assert document["plans"][0]["total_amount"] == history["plan"].total_amount
    assert {row["kind"] for row in document["messages"]} >= {
        Message.Kind.SIGN_IN_CODE,
        Message.Kind.PASSWORD_RESET,
    }
    secret_bodies = Message.objects.filter(
        customer=customer, kind__in=Message.SECRET_KINDS
    ).values_list("body", flat=True)
    for body in secret_bodies:
        assert body not in raw
    customer.refresh_from_db()
    assert customer.password not in raw
    for method in PaymentMethod.objects.filter(customer=customer):
        assert method.authorization_code not in raw
    for code in SignInCode.objects.filter(customer=customer):
        assert code.code_hash not in raw
    assert "someone.else@mail.example.com" not in raw
    assert other.plan.public_id not in raw


def test_sign_ins_are_recorded_for_each_way_in_with_address_and_browser(db):
    customer = CustomerFactory(email=EMAIL)
    web_signed_in()
    response = api_client().post(
        "/api/v1/auth/customer/login",
        {"email": EMAIL, "password": PASSWORD},
        format="json",
    )
    assert response.status_code == 200
    _, code = sign_in_code_issue(customer=customer)
    long_agent = "Agent\nwith a line break " + "x" * 400
    response = Client(REMOTE_ADDR=IP_WEB, HTTP_USER_AGENT=long_agent).post(
        "/account/login/code/enter/", {"email": EMAIL, "code": code}
    )
    assert response.status_code == 303

    rows = list(CustomerSignIn.objects.filter(customer=customer).order_by("id"))
    assert [(row.how, row.ip) for row in rows] == [
        ("password", IP_WEB),
        ("jwt", IP_API),
        ("code", IP_WEB),
    ]
    assert rows[0].user_agent == UA_WEB
    assert len(rows[2].user_agent) <= 255 and "\n" not in rows[2].user_agent


def test_sms_consent_is_recorded_and_turning_it_off_stops_texts(
    db, django_capture_on_commit_callbacks
):
    customer = CustomerFactory(email=EMAIL, sms_phone="")
    client = web_signed_in()
    assert client.post("/account/profile/", {"sms_phone": SMS}).status_code == 303
    customer.refresh_from_db()
    assert customer.sms_phone == SMS
    assert customer.sms_consent_source == "account_profile"
    assert customer.sms_consent_at is not None

    assert client.post("/account/profile/", {"remove": "1"}).status_code == 303
    customer.refresh_from_db()
    assert (customer.sms_phone, customer.sms_consent_at) == ("", None)
    with django_capture_on_commit_callbacks(execute=True):
        sign_in_code_send(customer=customer)
    channels = set(
        Message.objects.filter(customer=customer).values_list("channel", flat=True)
    )
    assert channels == {Message.Channel.EMAIL}
    page = client.get("/account/profile/").content.decode()
    assert "cannot be turned off" in page


def test_the_privacy_page_downloads_and_asks_for_confirmation_before_erasing(db):
    customer = CustomerFactory(email=EMAIL)
    client = web_signed_in()
    page = client.get("/account/privacy/")
    assert page.status_code == 200
    assert b"Download my data" in page.content
    download = client.post("/account/privacy/export/")
    assert download.status_code == 200
    assert "attachment" in download["Content-Disposition"]
    assert json.loads(download.content)["profile"]["email"] == EMAIL

    unconfirmed = client.post("/account/privacy/erase/", {"typed": "erase"})
    assert unconfirmed.status_code == 400
    customer.refresh_from_db()
    assert customer.erased_at is None

    done = client.post("/account/privacy/erase/", {"confirm": "on", "typed": "ERASE"})
    assert done.status_code == 303
    customer.refresh_from_db()
    assert customer.erased_at is not None
    # The session ended with the erasure.
    assert client.get("/account/privacy/").status_code == 302


def test_the_privacy_page_shows_why_an_erasure_is_refused(db):
    setup = make_active_plan(email=EMAIL)
    client = web_signed_in()
    page = client.get("/account/privacy/").content.decode()
    assert "cannot be erased yet" in page
    refused = client.post(
        "/account/privacy/erase/", {"confirm": "on", "typed": "ERASE"}
    )
    assert refused.status_code == 409
    assert setup.plan.public_id in refused.content.decode()
    assert setup.shopper.customer.erased_at is None


def admin_request(admin_user):
    request = RequestFactory().post("/admin/payments/customer/")
    request.user = admin_user
    request.session = {}
    from django.contrib.messages.storage.fallback import FallbackStorage

    request._messages = FallbackStorage(request)
    return request


def test_staff_export_and_erase_from_the_admin_with_the_refusal_shown(db, admin_user):
    setup = make_active_plan(email=EMAIL)
    free = CustomerFactory(email="free@mail.example.com")
    model_admin = site._registry[Customer]
    actions = {
        name: func
        for func, name, _ in model_admin.get_actions(admin_request(admin_user)).values()
    }

    request = admin_request(admin_user)
    exported = actions["export_data"](
        model_admin, request, Customer.objects.filter(pk=setup.shopper.customer.pk)
    )
    assert json.loads(exported.content)["profile"]["email"] == EMAIL

    request = admin_request(admin_user)
    actions["erase"](
        model_admin,
        request,
        Customer.objects.filter(pk__in=[setup.shopper.customer.pk, free.pk]),
    )
    shown = [str(message) for message in request._messages]
    assert any("was not erased" in text and "still open" in text for text in shown)
    assert any(f"{free.public_id} was erased" in text for text in shown)
    assert Customer.objects.get(pk=free.pk).erased_at is not None
    assert Customer.objects.get(pk=setup.shopper.customer.pk).erased_at is None


def completed_plan(email: str):
    setup = make_active_plan(email=email)
    for row in installments_of(setup.plan):
        collect(row.due_date)
    return setup


def test_saved_methods_are_deactivated_at_the_processor_before_anything_changes(
    db, monkeypatch
):
    setup = completed_plan("obi.cards@mail.example.com")
    customer = setup.shopper.customer
    before = database_dump()

    def unreachable(self, *, authorization_code):
        raise ProcessorError("The payment processor could not be reached.")

    with monkeypatch.context() as patch:
        patch.setattr(SandboxProcessor, "deactivate_authorization", unreachable)
        with pytest.raises(ProcessorError):
            customer_erase(customer=customer)
    assert database_dump() == before

    customer_erase(customer=customer)
    assert not SandboxAuthorization.objects.filter(revoked_at=None).exists()
    assert set(
        PaymentMethod.objects.filter(customer=customer).values_list(
            "status", "authorization_code", "is_default"
        )
    ) == {(PaymentMethod.Status.DELETED, "", False)}


def test_sign_in_records_are_kept_a_year_and_then_purged(db):
    customer = CustomerFactory(email=EMAIL)
    with time_machine.travel("2026-01-10 09:00Z", tick=False):
        web_signed_in()
    with time_machine.travel("2026-12-01 09:00Z", tick=False):
        web_signed_in()
    with time_machine.travel("2027-01-09 09:00Z", tick=False):
        assert purge_sign_ins() == 0
    with time_machine.travel("2027-01-11 09:00Z", tick=False):
        assert purge_sign_ins() == 1
    (kept,) = CustomerSignIn.objects.filter(customer=customer)
    assert kept.at.month == 12
