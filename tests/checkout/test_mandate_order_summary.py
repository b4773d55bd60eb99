"""A customer who adds a bank account from the hosted checkout keeps the order
in view on every bank page (issue 18), and no customer page of that journey
speaks of internal references."""

import html as html_module
import re

import pytest
from django.core.cache import cache
from django.test import Client

from ..conftest import make_merchant_with_key
from ..factories import PASSWORD, CustomerFactory
from .conftest import open_session

ORDER = "Samsung Galaxy A55"


def visible_text(response) -> str:
    html = response.content.decode()
    html = re.sub(r"<(script|style)\b.*?</\1>", " ", html, flags=re.S)
    html = re.sub(r'<input[^>]*type="hidden"[^>]*>', " ", html)
    return html_module.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)))


@pytest.fixture
def customer_client(db):
    cache.clear()  # the bank list is cached
    customer = CustomerFactory()
    client = Client()
    signed = client.post(
        "/account/login/", {"email": customer.email, "password": PASSWORD}
    )
    assert signed.status_code == 303
    yield client
    cache.clear()


@pytest.fixture
def checkout_path(db):
    owner = make_merchant_with_key()
    owner.merchant.business_name = "Ada's Electronics"
    owner.merchant.save()
    return f"/checkout/{open_session(owner, title=ORDER, amount=250_000)}"


def test_the_bank_pages_keep_the_order_summary(customer_client, checkout_path):
    start = customer_client.get(f"/account/methods/bank/?next={checkout_path}")
    text = visible_text(start)
    assert ORDER in text and "Ada's Electronics" in text and "₦2,500.00" in text

    step = customer_client.post(
        "/account/methods/bank/",
        {
            "bank_code": "044",
            "account_number": "0123456780",
            "terms_accepted": "on",
            "next": checkout_path,
        },
    )
    assert step.status_code == 303
    page = customer_client.get(step["Location"])
    text = visible_text(page)
    assert "Enter the OTP" in text
    assert ORDER in text and "₦2,500.00" in text

    refused = customer_client.post(step["Location"], {"otp": "000000"})
    assert refused.status_code == 400
    assert ORDER in visible_text(refused)

    for response in (start, page, refused):
        assert "reference" not in visible_text(response).lower()


def test_from_the_account_there_is_no_order(customer_client):
    page = customer_client.get("/account/methods/bank/")

    assert page.status_code == 200
    assert 'aria-label="Your order"' not in page.content.decode()


def test_a_next_path_that_is_no_checkout_shows_no_order(customer_client):
    for next_path in ("/checkout/fcs_unknown", "/account/", "/checkout/"):
        page = customer_client.get(f"/account/methods/bank/?next={next_path}")
        assert page.status_code == 200
        assert 'aria-label="Your order"' not in page.content.decode()


def test_five_wrong_otps_end_the_attempt_in_the_customers_words(
    customer_client, checkout_path
):
    step = customer_client.post(
        "/account/methods/bank/",
        {
            "bank_code": "044",
            "account_number": "0123456780",
            "terms_accepted": "on",
            "next": checkout_path,
        },
    )["Location"]
    for _ in range(5):
        ended = customer_client.post(step, {"otp": "000000"})

    text = visible_text(ended)
    assert "This attempt has ended (5 wrong OTPs)" in text
    assert "Start again" in text and ORDER in text
    assert "reference" not in text.lower()
    assert "initiate-bank-mandate" not in text
