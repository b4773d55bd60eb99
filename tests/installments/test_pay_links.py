"""Pay links (issue 27 item 1, DESIGN section 17): the merchant's endpoint,
the public pay page, expiry and revocation, "send me a new link", the rate
limits, and the link in every message that asks the customer to pay.

The plan of `plan_active`: 250,000 kobo, deposit 75,000 paid, installments
58,334 / 58,333 / 58,333 scheduled, bought today from "Shop <n>" as ORD-1001
by ada@mail.example.com with the sandbox's Visa ending 4081."""

import hashlib
from datetime import timedelta

import pytest
import time_machine
from django.core import mail
from django.db import connection
from django.utils import timezone
from rest_framework.test import APIClient

from installments.notifications import services as notifications
from installments.notifications.models import Message
from installments.paylinks import tokens
from installments.paylinks.models import PayLink
from installments.paylinks.services import pay_link_url, pay_links_revoke
from installments.plans.models import PaymentPlan, start_of_day
from payments.gateway.processors.sandbox.values import CARD_EXPIRES_THIS_MONTH
from payments.ledger.models import LedgerTransaction

from ..checkout.conftest import CARD_POOR, complete, open_session
from ..conftest import bearer, make_merchant_with_key
from .conftest import cancel, check_ledger, collect, installments_of, make_active_plan
from .declines import bought_with, on, wait_for_method
from .failed_collections import only_card
from .pay_links import links_sent, merchant_link, path_of, visitor
from .receipts import PHONE, with_phone

pytestmark = pytest.mark.django_db

Kind = Message.Kind


@pytest.fixture
def link(plan_active) -> str:
    """The path of a link the merchant made for `plan_active`."""
    return path_of(merchant_link(plan_active)["url"])


def nothing_charged(before: int) -> None:
    assert LedgerTransaction.objects.count() == before
    check_ledger()


# --- the merchant's endpoint --------------------------------------------------


def test_the_merchant_gets_a_link_valid_for_seven_days_stored_only_hashed(
    plan_active,
):
    api = APIClient()
    api.credentials(**plan_active.owner.headers)

    response = api.post(f"{plan_active.url}/pay-links")

    assert response.status_code == 201
    assert "no-store" in response["Cache-Control"]
    body = response.json()
    assert body["ok"] is True and set(body["data"]) == {
        "url",
        "expires_at",
        "livemode",
    }
    url = body["data"]["url"]
    assert url.startswith("http://127.0.0.1:8000/pay/")
    token = url.rsplit("/", 1)[1]
    made = PayLink.objects.get()
    assert made.token_hash == hashlib.sha256(token.encode()).hexdigest()
    assert made.created_by == PayLink.CreatedBy.MERCHANT
    assert made.expires_at - made.created_at == timedelta(days=7)
    assert body["data"]["expires_at"].endswith("Z")
    with connection.cursor() as cursor:  # no column of the row holds the token
        cursor.execute("SELECT * FROM installments_paylink")
        assert token not in repr(cursor.fetchall())


def test_a_customer_may_not_make_a_link_and_another_merchant_gets_a_404(plan_active):
    shopper = plan_active.shopper.client
    other = APIClient()
    other.credentials(**make_merchant_with_key().headers)

    as_customer = shopper.post(f"{plan_active.url}/pay-links")
    as_other = other.post(f"{plan_active.url}/pay-links")

    assert as_customer.status_code == 403
    assert as_other.status_code == 404
    assert not PayLink.objects.exists()


def test_a_plan_with_nothing_to_pay_gets_no_link(plan_active):
    cancel(plan_active)
    api = APIClient()
    api.credentials(**plan_active.owner.headers)

    response = api.post(f"{plan_active.url}/pay-links")

    assert response.status_code == 409
    assert response.json()["error"]["code"] == "plan_not_collectable"
    assert not PayLink.objects.exists()


# --- the page -----------------------------------------------------------------


def test_the_page_shows_its_own_plan_and_never_who_the_customer_is(plan_active):
    with_phone(plan_active)
    plan = plan_active.plan
    customer = plan.customer
    card = customer.payment_methods.get().public_id
    other = open_session(plan_active.owner, order_reference="ORD-OTHER-77")
    other_plan = complete(plan_active.shopper, other, card).json()["data"]["id"]
    first = installments_of(plan)[0]

    with time_machine.travel(start_of_day(first.due_date + timedelta(days=2))):
        response = visitor().get(path_of(merchant_link(plan_active)["url"]))

    page = response.content.decode()
    assert response.status_code == 200
    assert plan.merchant.business_name in page and "ORD-1001" in page
    assert first.public_id in page and "₦583.34" in page and "Overdue" in page
    assert "Visa •••• 4081" in page or "Visa ending 4081" in page
    for secret in (
        customer.email,
        PHONE,
        customer.first_name,
        customer.last_name,
        customer.public_id,
        "ORD-OTHER-77",
        other_plan,
        "4084084084084081",
    ):
        assert secret not in page, secret


def test_the_page_leaks_no_referrer_and_is_not_indexed_or_cached(link):
    """Its address goes in no Referer header to another site. Not `no-referrer`:
    with it a browser posts the page's own forms with `Origin: null`, which the
    CSRF check refuses (tests/browser/test_pay_page.py posts them)."""
    response = visitor().get(link)

    assert response["Referrer-Policy"] == "same-origin"
    assert response["X-Robots-Tag"] == "noindex, nofollow"
    assert "no-store" in response["Cache-Control"]
    page = response.content.decode()
    assert '<meta name="referrer" content="same-origin">' in page
    assert '<meta name="robots" content="noindex, nofollow">' in page


def test_an_unknown_token_is_a_404_page_offering_a_new_link():
    response = visitor().get("/pay/" + "A" * 32)

    assert response.status_code == 404
    page = response.content.decode()
    assert "This pay link is not valid" in page and "Send me a new link" in page


@pytest.mark.parametrize("how", ["expired", "revoked"])
def test_an_expired_or_revoked_link_says_so_and_pays_nothing(plan_active, link, how):
    before = LedgerTransaction.objects.count()
    first = installments_of(plan_active.plan)[0]
    choice = {"what": "installment", "installment_id": first.public_id, "how": "card"}
    later = timezone.now() + (timedelta(days=7) if how == "expired" else timedelta(0))
    if how == "revoked":
        pay_links_revoke(links=PayLink.objects.all())

    with time_machine.travel(later):
        shown = visitor().get(link)
        posted = visitor().post(link, choice)

    assert shown.status_code == posted.status_code == 410
    page = shown.content.decode()
    assert f'data-pay-link="{how}"' in page and "Send me a new link" in page
    first.refresh_from_db()
    assert first.status == "scheduled"
    nothing_charged(before)


def test_a_link_opens_until_its_last_second(link):
    with time_machine.travel(timezone.now() + timedelta(days=7, seconds=-5)):
        assert visitor().get(link).status_code == 200


def test_a_choice_without_what_it_needs_is_refused_and_charges_nothing(
    plan_active, link
):
    """USSD without the bank to dial: the page says what is missing (paying
    itself is tested in test_pay_page_paying.py)."""
    before = LedgerTransaction.objects.count()
    first = installments_of(plan_active.plan)[0]

    answer = visitor().post(
        link, {"what": "installment", "installment_id": first.public_id, "how": "ussd"}
    )

    assert answer.status_code == 422 and "Choose the bank" in answer.content.decode()
    nothing_charged(before)


def test_a_choice_naming_another_plans_installment_or_method_is_refused(plan_active):
    other = make_active_plan(
        owner=plan_active.owner, email="bola@mail.example.com", order_reference="B-2"
    )
    link = path_of(merchant_link(plan_active)["url"])
    theirs = installments_of(other.plan)[0].public_id
    their_method = other.plan.customer.payment_methods.get().public_id

    wrong_installment = visitor().post(
        link, {"what": "installment", "installment_id": theirs, "how": "card"}
    )
    wrong_method = visitor().post(
        link, {"what": "balance", "how": "saved", "payment_method_id": their_method}
    )
    nothing_overdue = visitor().post(link, {"what": "overdue", "how": "card"})

    assert wrong_installment.status_code == 422
    assert "Choose one of the installments" in wrong_installment.content.decode()
    assert wrong_method.status_code == 422
    assert "Choose one of your saved" in wrong_method.content.decode()
    assert nothing_overdue.status_code == 422
    assert "Nothing is overdue" in nothing_overdue.content.decode()


def test_a_paid_or_cancelled_plan_shows_nothing_to_pay(plan_active, link):
    cancel(plan_active)

    response = visitor().get(link)

    assert response.status_code == 200
    assert 'data-testid="nothing-to-pay"' in response.content.decode()
    assert 'data-testid="pay-form"' not in response.content.decode()


# --- "send me a new link" -----------------------------------------------------


def test_a_new_link_goes_to_the_contacts_on_file_and_the_page_never_shows_them(
    plan_active, link, committed, sms_outbox
):
    with_phone(plan_active)
    customer = plan_active.plan.customer
    with time_machine.travel(timezone.now() + timedelta(days=8)):
        with committed():
            response = visitor().post(f"{link}/new-link")
        page = response.content.decode()
        new = PayLink.objects.get(created_by=PayLink.CreatedBy.CUSTOMER)
        [fresh] = set(links_sent(sms_outbox))
        opened = visitor().get(fresh)

    assert response.status_code == 200 and 'data-testid="new-link-sent"' in page
    assert customer.email not in page and PHONE not in page
    assert list(
        Message.objects.filter(kind=Kind.PAY_LINK)
        .order_by("id")
        .values_list("subject", "channel", "recipient", "status")
    ) == [
        (new.public_id, "email", customer.email, "sent"),
        (new.public_id, "sms", PHONE, "sent"),
    ]
    assert [m.to for m in mail.outbox] == [[customer.email]]
    assert fresh != link and opened.status_code == 200
    assert "ORD-1001" in opened.content.decode()


def test_an_unknown_tokens_new_link_sends_nothing_and_looks_the_same(
    link, committed, sms_outbox
):
    with committed():
        known = visitor().post(f"{link}/new-link").content.decode()
        unknown = visitor().post(f"/pay/{'B' * 32}/new-link")

    assert unknown.status_code == 200
    assert unknown.content.decode() == known
    assert Message.objects.filter(kind=Kind.PAY_LINK).count() == 1  # the known one's


def test_new_links_are_limited_per_plan(plan_active, link, committed, settings):
    settings.PAY_LINK_RESEND_RATE_PER_IP = "100/hour"

    with committed():
        answers = [visitor().post(f"{link}/new-link").status_code for _ in range(4)]

    assert answers == [200, 200, 200, 429]
    assert PayLink.objects.filter(created_by=PayLink.CreatedBy.CUSTOMER).count() == 3


def test_the_page_is_limited_per_address_and_per_link(link, settings):
    settings.PAY_PAGE_RATE_PER_IP = "3/minute"
    other_address = {"REMOTE_ADDR": "10.0.0.9"}

    from_one = [visitor().get(link).status_code for _ in range(4)]
    settings.PAY_PAGE_RATE_PER_IP = "100/minute"
    settings.PAY_PAGE_RATE_PER_LINK = "5/minute"
    from_another = [visitor().get(link, **other_address).status_code for _ in range(3)]

    assert from_one == [200, 200, 200, 429]
    # The refused request counted nothing against the link: opened 3 times
    # before, twice more from another address spend its own budget.
    assert from_another == [200, 200, 429]


def test_a_busy_page_says_when_to_come_back(link, settings):
    settings.PAY_PAGE_RATE_PER_IP = "1/hour"
    visitor().get(link)

    response = visitor().get(link)

    assert response.status_code == 429
    assert int(response["Retry-After"]) > 0
    assert "Try again in" in response.content.decode()


# --- the links in the messages ------------------------------------------------


def test_a_recorded_message_holds_no_token_and_the_sent_one_a_working_link(
    committed, sms_outbox
):
    setup = make_active_plan()
    only_card(setup, CARD_POOR)
    with_phone(setup)
    first = installments_of(setup.plan)[0]

    with committed():
        collect(first.due_date)

    recorded = Message.objects.filter(kind=Kind.COLLECTION_FAILED)
    [made] = PayLink.objects.filter(created_by=PayLink.CreatedBy.MESSAGE)
    assert {m.pay_link_id for m in recorded} == {made.pk}
    assert all("{pay_link}" in m.body and "/pay/" not in m.body for m in recorded)
    sent = links_sent(sms_outbox)
    assert len(sent) == 2 and len(set(sent)) == 1  # one link, e-mail and SMS
    assert visitor().get(sent[0]).status_code == 200


def test_a_message_recorded_again_carries_the_same_link(plan_active):
    from installments.collection.claims import Claim
    from installments.notifications import texts
    from installments.notifications.sending import messages_record

    plan = PaymentPlan.objects.select_related("customer", "merchant").get(
        pk=plan_active.plan.pk
    )
    claim = Claim.of(installments_of(plan)[0], resumed=False)

    def record():
        return messages_record(
            texts.collection_failed(
                claim,
                customer=plan.customer,
                merchant=plan.merchant,
                reason="insufficient_funds",
                when=timezone.now(),
            )
        )

    assert len(record()) == 1 and record() == []
    assert PayLink.objects.count() == 1


def test_a_link_made_before_a_key_rotation_still_opens(plan_active, settings):
    url = merchant_link(plan_active)["url"]
    made = PayLink.objects.get()
    settings.SECRET_KEY_FALLBACKS = [settings.SECRET_KEY]
    settings.SECRET_KEY = "a-new-secret-key-for-the-rotation-test-0123456789"

    assert pay_link_url(made) == url
    assert visitor().get(path_of(url)).status_code == 200
    assert tokens.token_of(made.public_id) not in url


# --- the admin ----------------------------------------------------------------


def test_staff_revoke_a_link_in_the_admin_and_it_stops_opening(admin_client, link):
    made = PayLink.objects.get()

    listing = admin_client.get("/admin/installments/paylink/")
    revoked = admin_client.post(
        "/admin/installments/paylink/",
        {"action": "revoke", "_selected_action": [made.pk]},
        follow=True,
    )

    assert listing.status_code == 200 and made.public_id in listing.content.decode()
    assert "1 pay link(s) revoked." in revoked.content.decode()
    made.refresh_from_db()
    assert made.revoked_at is not None
    assert visitor().get(link).status_code == 410


def test_a_merchant_key_does_not_open_the_page_as_anyone(plan_active, link):
    """The page needs no credential and takes none: a merchant's key changes
    nothing on it (it shows the same plan, and no more)."""
    client = visitor()

    response = client.get(link, **bearer(plan_active.owner.api_key))

    assert response.status_code == 200
    assert plan_active.plan.customer.email not in response.content.decode()


def opens_the_plan(path: str, plan) -> bool:
    response = visitor().get(path)
    page = response.content.decode()
    return response.status_code == 200 and plan.order_reference in page


def one_link_by_email_and_sms(sms_outbox) -> str:
    sent = links_sent(sms_outbox)
    assert len(sent) == 2 and len(set(sent)) == 1, sent
    return sent[0]


def test_a_reminder_carries_a_working_pay_link(plan_active, sms_outbox):
    with_phone(plan_active)
    day = installments_of(plan_active.plan)[0].due_date - timedelta(days=3)

    with on(day):
        notifications.reminders_send(day=day)
        path = one_link_by_email_and_sms(sms_outbox)
        assert opens_the_plan(path, plan_active.plan)


def test_an_action_required_notice_carries_a_working_pay_link(committed, sms_outbox):
    setup = bought_with(CARD_EXPIRES_THIS_MONTH)
    with_phone(setup)

    first = wait_for_method(setup, committed)

    assert first.status == "action_required"
    assert Message.objects.filter(kind=Kind.ACTION_REQUIRED).count() == 2
    with on(first.due_date):
        assert opens_the_plan(one_link_by_email_and_sms(sms_outbox), setup.plan)


@pytest.fixture
def poor_plan(db):
    setup = make_active_plan()
    only_card(setup, CARD_POOR)
    with_phone(setup)
    return setup


def test_a_collection_failed_notice_carries_a_working_pay_link(
    poor_plan, committed, sms_outbox
):
    first = installments_of(poor_plan.plan)[0]

    with committed():
        collect(first.due_date)

    assert Message.objects.filter(kind=Kind.COLLECTION_FAILED).count() == 2
    assert opens_the_plan(one_link_by_email_and_sms(sms_outbox), poor_plan.plan)


def test_a_default_notice_carries_a_working_pay_link(poor_plan, committed, sms_outbox):
    first = installments_of(poor_plan.plan)[0]
    for days in (0, 1, 3):
        with committed():
            collect(first.due_date + timedelta(days=days))
    mail.outbox.clear()
    sms_outbox.clear()

    with committed():
        collect(first.due_date + timedelta(days=7))

    assert Message.objects.filter(kind=Kind.PLAN_DEFAULTED).count() == 2
    [to_merchant] = [m for m in mail.outbox if m.to == [poor_plan.plan.merchant.email]]
    assert "/pay/" not in to_merchant.body  # the merchant's notice has none
    page = visitor().get(one_link_by_email_and_sms(sms_outbox))
    assert page.status_code == 200
    assert "Overdue" in page.content.decode()  # what it defaulted on
