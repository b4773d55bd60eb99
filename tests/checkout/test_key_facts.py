"""The key facts and the customer's consent (DESIGN section 18): the box on the
hosted checkout, `terms_accepted` on every completion, the consent kept on the
deposit attempt, and `GET .../key-facts` giving a merchant's own page the same
figures."""

from datetime import UTC, datetime

import pytest
import time_machine
from django.test import Client
from django.utils import timezone
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rest_framework.test import APIClient

from checkout import services
from checkout.errors import TermsNotAccepted
from installments.deposits.models import DepositAttempt
from installments.plans import rules
from installments.plans.models import PaymentPlan
from payments.ledger.models import LedgerLine

from ..conftest import make_merchant_with_key
from .conftest import (
    add_card,
    complete,
    deposit_charges,
    open_session,
    register,
)
from .hosted import add_card_on_page, register_on_page, text

pytestmark = pytest.mark.django_db

LEGAL = {
    "legal_name": "Ada Gadgets Limited",
    "support_email": "help@adagadgets.example",
    "support_phone": "+234 803 123 4567",
    "fccpc_registration_number": "FCCPC/DL/2025/0042",
    "refund_policy": "Return within 7 days <b>unopened</b> & get it all back.",
}


def key_facts_url(token: str) -> str:
    return f"/api/v1/checkout/sessions/{token}/key-facts"


def written() -> tuple[int, ...]:
    """What a completion writes: attempts, plans, ledger lines, charges asked
    of the processor."""
    return (
        DepositAttempt.objects.count(),
        PaymentPlan.objects.count(),
        LedgerLine.objects.count(),
        deposit_charges().count(),
    )


@pytest.fixture
def owner(db):
    return make_merchant_with_key(**LEGAL)


# --- the completion call -----------------------------------------------------------


@pytest.mark.parametrize("consent", [{}, {"terms_accepted": False}])
def test_a_completion_without_consent_is_422_and_charges_and_writes_nothing(
    owner, consent
):
    shopper = register("ada@mail.example.com")
    method_id = add_card(shopper)
    token = open_session(owner)
    body = {"schedule_type": "monthly", "installment_count": 3}
    before = written()

    response = shopper.post(
        f"/api/v1/checkout/sessions/{token}/complete",
        {**body, "payment_method_id": method_id, **consent},
    )

    assert response.status_code == 422, response.content
    error = response.json()["error"]
    assert error["code"] == "terms_not_accepted"
    assert "terms_accepted: true" in error["message"]
    assert written() == before
    assert before[:2] == (0, 0)


def test_terms_accepted_must_be_a_json_boolean(owner):
    shopper = register("ada@mail.example.com")
    token = open_session(owner)
    method_id = add_card(shopper)
    before = written()

    response = complete(shopper, token, method_id, terms_accepted="true")

    assert response.status_code == 400
    assert written() == before


def test_consent_is_kept_on_the_deposit_attempt_with_time_address_and_browser(owner):
    shopper = register("ada@mail.example.com")
    method_id = add_card(shopper)
    token = open_session(owner)
    agent = "Mozilla/5.0 (Linux; Android 14)\r\nX-Injected: 1 " + "x" * 400
    moment = datetime(2026, 11, 27, 9, 30, tzinfo=UTC)

    with time_machine.travel(moment, tick=False):
        shopper.sign_in_again()
        response = shopper.client.post(
            f"/api/v1/checkout/sessions/{token}/complete",
            {
                "schedule_type": "monthly",
                "installment_count": 3,
                "payment_method_id": method_id,
                "terms_accepted": True,
            },
            format="json",
            REMOTE_ADDR="203.0.113.7",
            HTTP_USER_AGENT=agent,
        )

    assert response.status_code == 201, response.content
    attempt = DepositAttempt.objects.get()
    assert attempt.terms_accepted_at == moment
    assert attempt.terms_ip == "203.0.113.7"
    assert len(attempt.terms_user_agent) <= 255
    assert attempt.terms_user_agent.startswith(
        "Mozilla/5.0 (Linux; Android 14) X-Injected: 1 x"
    )
    assert "\n" not in attempt.terms_user_agent


def test_the_offline_deposit_without_consent_opens_nothing(owner):
    shopper = register("ada@mail.example.com")
    token = open_session(owner)
    method_id = add_card(shopper)
    before = written()

    with pytest.raises(TermsNotAccepted):
        services.deposit_offline_start(
            token=token,
            customer=shopper.customer,
            schedule_type="monthly",
            installment_count=3,
            channel="bank_transfer",
            payment_method_id=method_id,
            consent=None,
        )

    assert written() == before


# --- the hosted page -----------------------------------------------------------------


@pytest.fixture
def on_page(owner):
    browser = Client(HTTP_USER_AGENT="PageBrowser/1.0", REMOTE_ADDR="198.51.100.4")
    token = open_session(owner, amount=300_000)
    assert register_on_page(browser, token).status_code == 303
    return browser, token, add_card_on_page(browser, token)


def pay(browser, token, method_id, **extra):
    return browser.post(
        f"/checkout/{token}/pay",
        {
            "schedule_type": "monthly",
            "installment_count": "3",
            "payment_method_id": method_id,
            **extra,
        },
    )


def test_the_pay_page_shows_the_key_facts_and_an_unticked_consent_box(on_page):
    browser, token, _ = on_page

    page = browser.get(f"/checkout/{token}")
    html = text(page)

    assert page.status_code == 200
    assert "Key facts" in html
    assert "Ada Gadgets Limited" in html and "FCCPC/DL/2025/0042" in html
    assert "help@adagadgets.example" in html and "+234 803 123 4567" in html
    assert 'data-testid="kf-cash-price">₦3,000.00<' in html
    assert 'data-testid="kf-cost-of-credit">₦0.00<' in html
    assert 'data-testid="kf-fees">None<' in html
    # The merchant's text is data: escaped, on one line.
    assert "&lt;b&gt;unopened&lt;/b&gt; &amp; get it all back." in html
    assert "<b>unopened</b>" not in html
    box = html.split('id="terms_accepted"')[1].split(">")[0]
    assert 'name="terms_accepted"' in html and "checked" not in box
    assert "I have read the key facts and agree to this payment plan" in html


def test_paying_without_ticking_the_box_re_renders_with_the_reason_and_charges_nothing(
    on_page,
):
    browser, token, method_id = on_page
    before = written()

    response = pay(browser, token, method_id)

    assert response.status_code == 422
    assert "Tick the box to confirm that you have read the key facts" in text(response)
    for channel in ("bank_transfer", "ussd"):
        response = pay(browser, token, "", deposit_channel=channel, ussd_bank="737")
        assert response.status_code == 422
    assert written() == before
    assert before[:2] == (0, 0)


def test_paying_with_the_box_ticked_keeps_the_consent_of_that_browser(on_page):
    browser, token, method_id = on_page

    response = pay(browser, token, method_id, terms_accepted="yes")

    assert response.status_code == 303, text(response)
    attempt = DepositAttempt.objects.get()
    assert attempt.status == "succeeded"
    assert (attempt.terms_ip, attempt.terms_user_agent) == (
        "198.51.100.4",
        "PageBrowser/1.0",
    )
    assert attempt.terms_accepted_at is not None


def test_the_transfer_page_of_the_deposit_shows_the_key_facts(on_page):
    browser, token, method_id = on_page

    started = pay(
        browser,
        token,
        method_id,
        deposit_channel="bank_transfer",
        terms_accepted="yes",
    )
    page = browser.get(started["Location"])

    assert "<details>" in text(page) and "Key facts of your plan" in text(page)
    assert 'data-testid="kf-deposit">₦' in text(page)
    assert DepositAttempt.objects.get().terms_ip == "198.51.100.4"


def test_the_live_preview_carries_the_key_facts_the_api_answers(on_page, owner):
    browser, token, _ = on_page
    choice = {"schedule_type": "monthly", "installment_count": "4"}

    preview = browser.get(f"/checkout/{token}/preview", choice).json()["data"]
    api = APIClient().get(key_facts_url(token), choice, **owner.headers)

    assert api.status_code == 200, api.content
    assert preview["key_facts"] == api.json()["data"]
    assert len(preview["key_facts"]["installments"]) == 4
    assert "Total cost of credit" in preview["key_facts_html"]
    assert "&lt;b&gt;unopened" in preview["key_facts_html"]


# --- GET .../key-facts ---------------------------------------------------------------


def test_key_facts_answer_with_the_customers_own_score(owner):
    shopper = register("ada@mail.example.com")
    token = open_session(owner, amount=1_000_000)

    response = shopper.client.get(
        key_facts_url(token), {"schedule_type": "monthly", "installment_count": "3"}
    )

    assert response.status_code == 200, response.content
    facts = response.json()["data"]
    terms = rules.plan_terms(
        amount=1_000_000,
        score=shopper.customer.score,
        schedule_type="monthly",
        installment_count=3,
        config=rules.PlanConfig.of(owner.merchant),
        start=timezone.localdate(),
    )
    assert facts["deposit"] == terms.deposit_amount
    assert facts["merchant"]["name"] == "Ada Gadgets Limited"
    assert facts["fees"] == 0 and facts["total_cost_of_credit"] == 0


def test_another_merchants_key_cannot_read_a_sessions_key_facts(owner):
    other = make_merchant_with_key()
    token = open_session(owner)

    response = APIClient().get(
        key_facts_url(token),
        {"schedule_type": "monthly", "installment_count": "3"},
        **other.headers,
    )

    assert response.status_code == 404


@pytest.mark.parametrize(
    ("query", "status"),
    [
        ({"schedule_type": "weekly", "installment_count": "3"}, 422),
        ({"schedule_type": "monthly", "installment_count": "60"}, 422),
        (
            {
                "schedule_type": "monthly",
                "installment_count": "3",
                "preferred_day": "31",
            },
            400,
        ),
    ],
)
def test_bad_choices_are_refused_as_the_preview_refuses_them(owner, query, status):
    token = open_session(owner)
    headers = owner.headers

    response = APIClient().get(key_facts_url(token), query, **headers)
    preview = APIClient().post(
        "/api/v1/checkout/preview",
        {
            "merchant_id": owner.merchant.public_id,
            "amount": 500_000,
            "schedule_type": query["schedule_type"],
            "installment_count": int(query["installment_count"]),
            **(
                {"preferred_day": int(query["preferred_day"])}
                if "preferred_day" in query
                else {}
            ),
        },
        format="json",
        **headers,
    )

    assert response.status_code == preview.status_code == status, response.content
    if status == 422:
        assert response.json()["error"] == preview.json()["error"]


AMOUNTS = st.integers(min_value=rules.MIN_AMOUNT, max_value=50_000_000)


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    amount=AMOUNTS,
    schedule=st.sampled_from(rules.SCHEDULE_TYPES),
    count=st.integers(min_value=1, max_value=6),
    day=st.one_of(st.none(), st.integers(1, 28), st.just(rules.LAST_WORKING_DAY)),
)
def test_key_facts_equal_the_plan_rules_to_the_kobo(db, amount, schedule, count, day):
    owner = make_merchant_with_key(allowed_schedule_types=list(rules.SCHEDULE_TYPES))
    token = open_session(owner, amount=amount)
    day = day if schedule == rules.MONTHLY else None
    query = {"schedule_type": schedule, "installment_count": str(count)}
    if day is not None:
        query["preferred_day"] = str(day)

    answer = APIClient().get(key_facts_url(token), query, **owner.headers)

    assert answer.status_code == 200, answer.content
    facts = answer.json()["data"]
    terms = rules.plan_terms(
        amount=amount,
        score=rules.NEW_CUSTOMER_SCORE,
        schedule_type=schedule,
        installment_count=count,
        config=rules.PlanConfig.of(owner.merchant),
        start=timezone.localdate(),
        preferred_day=day,
    )
    assert facts["cash_price"] == terms.total_amount == amount
    assert facts["deposit"] == terms.deposit_amount
    assert [row["amount"] for row in facts["installments"]] == list(
        terms.installment_amounts
    )
    assert [row["due_date"] for row in facts["installments"]] == [
        due.isoformat() for due in terms.due_dates
    ]
    assert facts["total_payable"] == terms.deposit_amount + sum(
        terms.installment_amounts
    )
    assert facts["total_cost_of_credit"] == facts["total_payable"] - amount
