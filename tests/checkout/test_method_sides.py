"""Customers' payment methods have a side (docs/test-mode.md, "Customers and
their methods"): a card saved in a test checkout is a test method, offered and
charged only for test plans; a live one only for live plans; the same card
saved on both sides is two methods, each side with its own default."""

from datetime import datetime, time
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.test import Client

from installments.collection.engine import collect_due
from installments.early.selectors import early_payment_choices
from installments.plans.models import Installment, PaymentPlan
from installments.plans.scores import histories
from payments.methods.services import payment_method_delete
from payments.models import Customer, PaymentMethod

from ..conftest import MerchantWithKey, with_test_key
from .conftest import deposit_charges, open_session
from .hosted import add_card_on_page, register_on_page, text

pytestmark = pytest.mark.django_db

LAGOS = ZoneInfo("Africa/Lagos")


@pytest.fixture
def test_key(merchant_with_key) -> MerchantWithKey:
    """The same account's test key (it acts as the account's test side)."""
    return with_test_key(merchant_with_key)


@pytest.fixture
def browser():
    return Client()


@pytest.fixture
def both_sides(browser, merchant_with_key, test_key, committed):
    """One customer with the same sandbox card saved in a live checkout and in
    a test one: (live session token, test session token, live method id, test
    method id)."""
    live_token = open_session(merchant_with_key)
    test_token = open_session(test_key, order_reference="ORD-TEST-1")
    with committed():
        register_on_page(browser, live_token)
        live_method = add_card_on_page(browser, live_token)
        test_method = add_card_on_page(browser, test_token)
    return live_token, test_token, live_method, test_method


def pay_on_page(browser, token, method_id):
    return browser.post(
        f"/checkout/{token}/pay",
        {
            "schedule_type": "monthly",
            "installment_count": "3",
            "payment_method_id": method_id,
            "terms_accepted": "yes",
        },
    )


def test_the_same_card_saved_on_both_sides_is_two_methods_each_a_default(
    both_sides,
):
    _, _, live_id, test_id = both_sides

    live = PaymentMethod.objects.get(public_id=live_id)
    test = PaymentMethod.objects.get(public_id=test_id)
    assert live.pk != test.pk
    assert live.fingerprint == test.fingerprint
    assert (live.livemode, test.livemode) == (True, False)
    assert (live.is_default, test.is_default) == (True, True)
    assert test.processor == "sandbox"


def test_saving_the_card_again_on_one_side_refreshes_that_sides_method_only(
    browser, both_sides
):
    _, test_token, live_id, test_id = both_sides

    again = add_card_on_page(browser, test_token)

    assert again == test_id
    assert PaymentMethod.objects.filter(status="active").count() == 2


def test_each_checkout_offers_only_the_methods_of_its_side(browser, both_sides):
    live_token, test_token, live_id, test_id = both_sides

    live_page = text(browser.get(f"/checkout/{live_token}"))
    test_page = text(browser.get(f"/checkout/{test_token}"))

    assert live_id in live_page and test_id not in live_page
    assert test_id in test_page and live_id not in test_page


@pytest.mark.parametrize("side", ["live", "test"])
def test_a_checkout_never_charges_a_method_of_the_other_side(browser, both_sides, side):
    live_token, test_token, live_id, test_id = both_sides
    token, other_sides_method = (
        (live_token, test_id) if side == "live" else (test_token, live_id)
    )

    response = pay_on_page(browser, token, other_sides_method)

    assert response.status_code == 404
    assert "No payment method with this id belongs to you." in text(response)
    assert deposit_charges().count() == 0
    assert not PaymentPlan.objects.filter(status="active").exists()


def test_a_plans_method_choices_are_of_its_side(browser, both_sides, committed):
    live_token, test_token, live_id, test_id = both_sides
    with committed():
        assert pay_on_page(browser, live_token, live_id).status_code == 303
        assert pay_on_page(browser, test_token, test_id).status_code == 303
    customer = Customer.objects.get()
    live_plan = PaymentPlan.objects.get(merchant__livemode=True)
    test_plan = PaymentPlan.objects.get(merchant__livemode=False)

    live_choices = early_payment_choices(customer, live_plan).methods
    test_choices = early_payment_choices(customer, test_plan).methods

    assert [method.public_id for method in live_choices] == [live_id]
    assert [method.public_id for method in test_choices] == [test_id]


def test_the_engine_never_charges_a_test_method_for_a_live_plan(
    browser, both_sides, committed
):
    live_token, _, live_id, _ = both_sides
    with committed():
        assert pay_on_page(browser, live_token, live_id).status_code == 303
    plan = PaymentPlan.objects.get()
    customer = Customer.objects.get()
    # The live card goes: only the test card is left active.
    payment_method_delete(customer=customer, public_id=live_id)
    charges_before = deposit_charges().count()
    first = plan.installments.order_by("sequence").first()

    due = datetime.combine(first.due_date, time(9), tzinfo=LAGOS)
    with time_machine.travel(due, tick=False), committed():
        collect_due(on_date=first.due_date, plan_pk=plan.pk)

    first.refresh_from_db()
    assert first.status != Installment.Status.PAID
    assert deposit_charges().count() == charges_before


def test_the_customers_own_pages_list_live_methods_only(browser, both_sides):
    _, _, live_id, test_id = both_sides

    page = text(browser.get("/account/"))

    assert live_id in page
    assert test_id not in page


def test_the_score_counts_live_plans_only(browser, both_sides, committed):
    _, test_token, _, test_id = both_sides
    with committed():
        assert pay_on_page(browser, test_token, test_id).status_code == 303
    plan = PaymentPlan.objects.get()
    plan.installments.update(status=Installment.Status.PAID)
    PaymentPlan.objects.filter(pk=plan.pk).update(status=PaymentPlan.Status.COMPLETED)
    customer = Customer.objects.get()

    history = histories([customer.pk])[customer.pk]

    assert history.completed_plans == 0
    assert history.paid_first_attempt == 0
