"""The hosted checkout's sign-in form offers the other ways in (DESIGN section
17): "Forgot your password?" and "Sign in with a code", each keeping the
checkout as `next`, so a customer who cannot remember the password ends up
back at the checkout, signed in."""

import re
from urllib.parse import parse_qs, quote, urlsplit

import pytest
from django.core import mail
from django.test import Client

from ..factories import CustomerFactory
from .conftest import open_session
from .hosted import text

NEW_PASSWORD = "a-new-Passphrase-42"
EMAIL = "ada@mail.example.com"


@pytest.fixture
def ada(db):
    return CustomerFactory(email=EMAIL, sms_phone="+2348031234567")


@pytest.fixture
def checkout(merchant_with_key, ada) -> str:
    """The path of a fresh checkout for Ada."""
    return f"/checkout/{open_session(merchant_with_key)}"


def _links(page: str) -> dict[str, str]:
    return dict(
        re.findall(
            r'<a href="([^"]+)" data-testid="(forgot-password|sign-in-with-code)"', page
        )
    )


def test_the_checkouts_sign_in_offers_a_reset_and_a_code_back_to_the_checkout(
    checkout,
):
    page = text(Client().get(checkout))

    back = quote(checkout)
    assert {name: href for href, name in _links(page).items()} == {
        "forgot-password": f"/account/password-reset/?next={back}",
        "sign-in-with-code": f"/account/login/code/?next={back}",
    }
    assert ">Forgot your password?</a>" in page
    assert ">Sign in with a code</a>" in page


def test_a_code_from_the_checkout_signs_in_and_comes_back_to_it(checkout, committed):
    client = Client()
    page = text(client.get(checkout))
    code_page = {name: href for href, name in _links(page).items()}["sign-in-with-code"]

    with committed():
        asked = client.post(code_page, {"email": EMAIL})
    (message,) = mail.outbox
    (code,) = re.findall(r"\b\d{6}\b", message.body)
    signed_in = client.post(asked["Location"], {"email": EMAIL, "code": code})

    assert signed_in.status_code == 303
    assert signed_in["Location"] == checkout
    assert f"Signed in as {EMAIL}" in text(client.get(checkout))


def test_a_password_reset_from_the_checkout_comes_back_to_it(checkout, committed):
    client = Client()
    page = text(client.get(checkout))
    reset_page = {name: href for href, name in _links(page).items()}["forgot-password"]
    form = text(client.get(reset_page))
    assert f'<input type="hidden" name="next" value="{checkout}">' in form

    with committed():
        asked = client.post(reset_page, {"email": EMAIL, "next": checkout})
    assert asked.status_code == 303
    assert urlsplit(asked["Location"]).path == "/account/password-reset/sent/"
    sent = text(client.get(asked["Location"]))
    assert f'href="/account/login/?next={quote(checkout)}"' in sent
    (message,) = mail.outbox
    (link,) = re.findall(r"https?://\S+/account/password-reset/\S+/", message.body)
    assert "checkout" not in link  # the e-mail carries the token only
    opened = client.get(urlsplit(link).path)
    reset = client.post(
        opened["Location"],
        {"new_password": NEW_PASSWORD, "new_password_confirm": NEW_PASSWORD},
    )

    assert reset.status_code == 303
    login = urlsplit(reset["Location"])
    assert login.path == "/account/login/"
    assert parse_qs(login.query) == {"next": [checkout]}
    back = client.post(reset["Location"], {"email": EMAIL, "password": NEW_PASSWORD})
    assert back["Location"] == checkout
    assert f"Signed in as {EMAIL}" in text(client.get(checkout))


def test_a_reset_never_sends_the_customer_to_another_site(ada, committed):
    client = Client()
    with committed():
        asked = client.post(
            "/account/password-reset/?next=https://evil.example/",
            {"email": EMAIL},
        )
    assert asked["Location"] == "/account/password-reset/sent/"
    (message,) = mail.outbox
    (link,) = re.findall(r"https?://\S+/account/password-reset/\S+/", message.body)
    opened = client.get(urlsplit(link).path)

    reset = client.post(
        opened["Location"],
        {"new_password": NEW_PASSWORD, "new_password_confirm": NEW_PASSWORD},
    )

    assert reset["Location"] == "/account/login/"


def test_the_account_sign_in_page_offers_each_way_in_once_with_its_next(db):
    page = text(Client().get("/account/login/?next=/account/profile/"))

    assert {name: href for href, name in _links(page).items()} == {
        "forgot-password": "/account/password-reset/?next=/account/profile/",
        "sign-in-with-code": "/account/login/code/?next=/account/profile/",
    }
    assert page.count("Forgot your password?") == 1
    assert page.count("Sign in with a code") == 1
