"""Paying from the pay page of a pay link (issue 27, DESIGN section 17): one
installment, everything overdue or the whole balance, by bank transfer, USSD,
a new card (the processor's card page and back) or a saved method after the
one-time code; each goes through the early payments' services, so it claims,
settles and restores exactly as they do.

The plan of `plan_active`: 250,000 kobo, deposit 75,000 paid, installments
58,334 / 58,333 / 58,333 scheduled, bought today by ada@mail.example.com with
the sandbox's Visa ending 4081."""

import re
from datetime import timedelta
from urllib.parse import urlsplit

import pytest
import time_machine
from django.core import mail
from django.utils import timezone

from installments.early.models import EarlyPayment
from installments.notifications.models import Message
from installments.plans.models import Installment, PaymentPlan
from payments.gateway.processors.sandbox.values import CARD_SUCCEEDS
from payments.gateway.services import sandbox_offline_complete
from payments.ledger.models import LedgerTransaction
from payments.methods.models import PaymentMethod

from .conftest import check_ledger, installments_of
from .pay_links import merchant_link, path_of, visitor
from .receipts import PHONE, with_phone

pytestmark = pytest.mark.django_db

Status = Installment.Status


@pytest.fixture
def link(plan_active) -> str:
    return path_of(merchant_link(plan_active)["url"])


def choose(client, link: str, **fields):
    return client.post(link, fields)


def html(response) -> str:
    return response.content.decode()


def statuses(plan) -> list[str]:
    return [row.status for row in installments_of(plan)]


def test_a_transfer_from_the_link_shows_the_account_and_pays_on_the_money(
    plan_active, link
):
    first = installments_of(plan_active.plan)[0]
    client = visitor()
    answer = choose(
        client,
        link,
        what="installment",
        installment_id=first.public_id,
        how="bank_transfer",
    )
    assert answer.status_code == 303
    payment = EarlyPayment.objects.get()
    assert answer["Location"] == f"{link}/payments/{payment.public_id}"
    assert (payment.channel, payment.amount) == ("bank_transfer", 58_334)
    page = client.get(answer["Location"])
    assert page.status_code == 200
    assert payment.instructions["account_number"] in html(page)
    assert "ada@mail.example.com" not in html(page)
    assert statuses(plan_active.plan)[0] == Status.PROCESSING

    sandbox_offline_complete(reference=payment.reference)

    page = client.get(answer["Location"])
    assert "Paid. Thank you!" in html(page)
    assert statuses(plan_active.plan) == [
        Status.PAID,
        Status.SCHEDULED,
        Status.SCHEDULED,
    ]
    check_ledger()


def test_everything_overdue_by_ussd_is_one_payment_of_the_overdue_installments(
    plan_active, link
):
    rows = installments_of(plan_active.plan)
    # The first two failed their charges (overdue); the third is not due yet.
    Installment.objects.filter(pk__in=[rows[0].pk, rows[1].pk]).update(
        status=Status.FAILED
    )
    answer = choose(visitor(), link, what="overdue", how="ussd", bank="737")
    assert answer.status_code == 303
    payment = EarlyPayment.objects.get()
    assert payment.kind == EarlyPayment.Kind.PAYOFF
    assert payment.reference.endswith("_po1")
    assert payment.amount == 58_334 + 58_333
    assert sorted(payment.items.values_list("installment__sequence", flat=True)) == [
        1,
        2,
    ]
    assert payment.instructions["ussd_code"].startswith("*737*")
    sandbox_offline_complete(reference=payment.reference)
    assert statuses(plan_active.plan) == [Status.PAID, Status.PAID, Status.SCHEDULED]
    check_ledger()


def test_the_whole_balance_by_transfer_pays_off_the_plan(plan_active, link):
    answer = choose(visitor(), link, what="balance", how="bank_transfer")
    assert answer.status_code == 303
    payment = EarlyPayment.objects.get()
    assert payment.amount == 175_000
    sandbox_offline_complete(reference=payment.reference)
    plan = PaymentPlan.objects.get(pk=plan_active.plan.pk)
    assert plan.status == PaymentPlan.Status.COMPLETED
    check_ledger()


def test_a_saved_method_is_charged_only_after_the_code_sent_to_the_contacts_on_file(
    plan_active, link, sms_outbox, committed
):
    with_phone(plan_active)
    card = PaymentMethod.objects.get(customer=plan_active.plan.customer)
    first = installments_of(plan_active.plan)[0]
    client = visitor()
    fields = {
        "what": "installment",
        "installment_id": first.public_id,
        "how": "saved",
        "payment_method_id": card.public_id,
    }
    before = LedgerTransaction.objects.count()

    with committed():
        asked = choose(client, link, **fields)
    assert asked.status_code == 200
    assert "Enter the code we sent you" in html(asked)
    # Where it went is never shown to whoever holds the link.
    assert "ada@mail.example.com" not in html(asked) and PHONE not in html(asked)
    assert LedgerTransaction.objects.count() == before
    [email] = [m for m in mail.outbox if m.subject == "Your one-time code"]
    code = re.search(r"\b(\d{6})\b", email.body).group(1)
    assert code in sms_outbox[-1].body
    assert Message.objects.filter(kind=Message.Kind.SIGN_IN_CODE).count() == 2

    wrong = "000000" if code != "000000" else "111111"
    refused = choose(client, link, **fields, code=wrong)
    assert refused.status_code == 422
    assert LedgerTransaction.objects.count() == before
    assert statuses(plan_active.plan)[0] == Status.SCHEDULED

    paid = choose(client, link, **fields, code=code)
    assert paid.status_code == 200 and "Paid. Thank you!" in html(paid)
    assert statuses(plan_active.plan)[0] == Status.PAID
    # A code works once: the same code again charges nothing more.
    second = installments_of(plan_active.plan)[1]
    again = choose(
        client, link, **{**fields, "installment_id": second.public_id}, code=code
    )
    assert again.status_code == 422
    assert statuses(plan_active.plan)[1] == Status.SCHEDULED
    check_ledger()


def test_a_new_card_goes_to_the_card_page_and_back_and_pays_the_choice(
    plan_active, link
):
    first = installments_of(plan_active.plan)[0]
    client = visitor()
    answer = choose(
        client, link, what="installment", installment_id=first.public_id, how="card"
    )
    assert answer.status_code == 303
    card_page = urlsplit(answer["Location"])
    # The sandbox's card page, as the customer fills it in.
    back = client.post(
        card_page.path + "?" + card_page.query, {"card_number": CARD_SUCCEEDS}
    )
    assert back.status_code == 302
    returned = urlsplit(back["Location"])
    assert returned.path == f"{link}/card"
    paid = client.get(returned.path + "?" + returned.query)
    assert paid.status_code == 200 and "Paid. Thank you!" in html(paid)
    assert statuses(plan_active.plan)[0] == Status.PAID
    check_ledger()


def test_a_card_return_for_another_link_or_tampered_pays_nothing(plan_active, link):
    other = path_of(merchant_link(plan_active)["url"])
    first = installments_of(plan_active.plan)[0]
    client = visitor()
    answer = choose(
        client, link, what="installment", installment_id=first.public_id, how="card"
    )
    card_page = urlsplit(answer["Location"])
    back = client.post(
        card_page.path + "?" + card_page.query, {"card_number": CARD_SUCCEEDS}
    )
    query = urlsplit(back["Location"]).query
    assert client.get(f"{other}/card?{query}").status_code == 404
    assert client.get(f"{link}/card?{query.replace('c=', 'c=x', 1)}").status_code == 404
    assert statuses(plan_active.plan)[0] == Status.SCHEDULED


def test_an_expired_link_pays_nothing_by_any_channel(plan_active, link):
    first = installments_of(plan_active.plan)[0]
    before = LedgerTransaction.objects.count()
    with time_machine.travel(timezone.now() + timedelta(days=7, minutes=1)):
        for how in ("bank_transfer", "card", "ussd"):
            answer = choose(
                visitor(),
                link,
                what="installment",
                installment_id=first.public_id,
                how=how,
                bank="737",
            )
            assert answer.status_code == 410
    assert not EarlyPayment.objects.exists()
    assert LedgerTransaction.objects.count() == before
    check_ledger()


def test_a_defaulted_plans_link_shows_what_is_owed_and_pays_nothing(plan_active, link):
    plan = plan_active.plan
    rows = installments_of(plan)
    Installment.objects.filter(pk=rows[0].pk).update(status=Status.DEFAULTED)
    PaymentPlan.objects.filter(pk=plan.pk).update(status=PaymentPlan.Status.DEFAULTED)
    page = visitor().get(link)
    assert page.status_code == 200 and "This plan is in default" in html(page)
    assert 'data-testid="pay-form"' not in html(page)
    answer = choose(visitor(), link, what="balance", how="bank_transfer")
    assert answer.status_code == 422
    assert not EarlyPayment.objects.exists()


def test_a_payment_page_is_only_for_a_payment_of_the_links_plan(plan_active, link):
    other = path_of(merchant_link(plan_active)["url"])
    answer = choose(visitor(), link, what="balance", how="bank_transfer")
    assert answer.status_code == 303
    payment = EarlyPayment.objects.get()
    # Another link to the same plan sees it; an id the plan has not, nothing.
    assert visitor().get(f"{other}/payments/{payment.public_id}").status_code == 200
    assert visitor().get(f"{link}/payments/pay_{'x' * 22}").status_code == 404
