"""The hosted checkout of a test session says so on every page (DESIGN section
21, docs/test-mode.md): a customer never wonders whether money moved; a live
session's pages carry no band."""

import pytest
from django.test import Client

from ..conftest import with_test_key
from .conftest import open_session
from .hosted import register_on_page

pytestmark = pytest.mark.django_db

BAND = 'data-testid="test-band"'


def pages(browser: Client, token: str) -> list[str]:
    """The checkout's sign-in page, then (signed in) its pay page."""
    first = browser.get(f"/checkout/{token}").content.decode()
    register_on_page(browser, token)
    return [first, browser.get(f"/checkout/{token}").content.decode()]


def test_a_test_sessions_pages_show_the_test_band(merchant_with_key):
    token = open_session(with_test_key(merchant_with_key))

    shown = pages(Client(), token)

    assert all(BAND in page for page in shown)
    assert all("this checkout takes no real money" in page for page in shown)


def test_a_live_sessions_pages_show_none(merchant_with_key):
    token = open_session(merchant_with_key)

    shown = pages(Client(), token)

    assert not any(BAND in page for page in shown)
