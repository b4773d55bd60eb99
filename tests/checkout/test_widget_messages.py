"""The hosted checkout's messages to the widget (success with the session token
and plan id, close) go only to the merchant's registered site and to the
service's own pages, never to "*" (issue 14). The browser side is in
tests/browser/test_hosted_checkout.py."""

import re
from pathlib import Path

import pytest
from django.contrib.staticfiles import finders
from django.test import Client

from ..conftest import make_merchant_with_key
from ..factories import PASSWORD
from .conftest import add_card, complete, open_session, register

pytestmark = pytest.mark.django_db


def merchant_origin_of(response) -> str | None:
    found = re.search(
        r'<body[^>]* data-merchant-origin="([^"]*)"', response.content.decode()
    )
    return found[1] if found else None


def paid_checkout(owner) -> tuple[Client, str]:
    """A session paid by a customer, and that customer's browser signed in."""
    token = open_session(owner)
    shopper = register("ada@mail.example.com")
    assert complete(shopper, token, add_card(shopper)).status_code == 201
    browser = Client()
    signed_in = browser.post(
        "/account/login/", {"email": "ada@mail.example.com", "password": PASSWORD}
    )
    assert signed_in.status_code == 303
    return browser, token


@pytest.mark.parametrize(
    ("business_url", "origin"),
    [
        ("https://shop.example.com", "https://shop.example.com"),
        ("https://Shop.Example.com:8443/store/?ref=x", "https://shop.example.com:8443"),
    ],
)
def test_the_paid_page_names_the_merchants_origin_for_its_messages(
    business_url, origin
):
    browser, token = paid_checkout(make_merchant_with_key(business_url=business_url))

    done = browser.get(f"/checkout/{token}/done")

    assert done.status_code == 200
    assert f'data-checkout-success="{token}"' in done.content.decode()
    assert merchant_origin_of(done) == origin


def test_the_relaying_frame_names_the_merchants_origin(merchant_with_key):
    token = open_session(merchant_with_key)

    framed = Client().get(
        f"/checkout/{token}",
        HTTP_SEC_FETCH_DEST="iframe",
        HTTP_SEC_FETCH_SITE="cross-site",
    )

    assert "data-open-window" in framed.content.decode()
    assert merchant_origin_of(framed) == "https://shop.example.com"


def test_a_merchant_url_that_is_no_plain_origin_is_never_rendered(db):
    owner = make_merchant_with_key(business_url='https://shop.example.com" onload="x')
    token = open_session(owner)

    page = Client().get(f"/checkout/{token}")

    assert merchant_origin_of(page) is None
    assert "onload" not in page.content.decode()


def test_the_checkout_script_posts_only_to_the_origins_it_was_given():
    script = Path(finders.find("js/checkout.js")).read_text()

    calls = re.findall(r"\.postMessage\(([^()]*)\)", script)

    assert calls == ["message, origin"]
    assert not re.search(r"""postMessage\([^;]*["']\*["']""", script)
    assert "body.dataset.merchantOrigin" in script
    assert "[window.location.origin]" in script
