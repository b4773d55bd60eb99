"""The hosted checkout pages over Django's test client: registering and adding a
card as a customer does on the page."""

import re
from urllib.parse import parse_qs, urlsplit

from django.test import Client

from ..factories import PASSWORD
from .conftest import CARD_OK


def register_on_page(browser, token, email="ada@mail.example.com"):
    return browser.post(
        f"/checkout/{token}/register",
        {
            "email": email,
            "first_name": "Ada",
            "last_name": "Obi",
            "phone": "+2348012345678",
            "password": PASSWORD,
        },
    )


def add_card_on_page(browser, token, card_number=CARD_OK):
    """The card flow from the checkout: our page, the sandbox's page, back."""
    here = f"/checkout/{token}"
    started = browser.post("/account/methods/card/", {"next": here})
    assert started.status_code == 303, started.content
    authorize = urlsplit(started["Location"]).path
    assert authorize.startswith("/sandbox/authorize/")
    back = Client().post(authorize, {"card_number": card_number})
    assert back.status_code == 302
    returned = browser.get(back["Location"])
    assert returned.status_code == 303
    location = returned["Location"]
    assert location.startswith(f"{here}?method=pm_"), location
    return parse_qs(urlsplit(location).query)["method"][0]


def text(response) -> str:
    return re.sub(r"\s+", " ", response.content.decode())
