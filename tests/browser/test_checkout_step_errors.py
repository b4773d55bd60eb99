"""The hosted checkout says so when a step fails, instead of staying put without a
word (issue 25, item 8): a card page on another address than the one the checkout
was opened at (the browser refuses the redirect), a preview the server answers
with an error page, a preview that gets no answer at all."""

import re

import pytest
from playwright.sync_api import expect

from checkout import services as checkout_services

from ..conftest import make_merchant_with_key
from ..factories import PASSWORD
from .conftest import DESKTOP

pytestmark = pytest.mark.django_db(transaction=True)


def open_checkout(owner, reference: str) -> str:
    return checkout_services.session_create(
        merchant=owner.merchant,
        amount=4_500_000,
        currency="NGN",
        title="Ergonomic office chair",
        order_reference=reference,
    ).session.token


def register(page, email: str) -> None:
    new = page.get_by_role("region", name="I'm new here")
    new.get_by_label("Email").fill(email)
    new.get_by_label("First name").fill("Ada")
    new.get_by_label("Last name").fill("Obi")
    new.get_by_label("Phone number").fill("+2348012345678")
    new.get_by_label("Password").fill(PASSWORD)
    new.get_by_role("button", name="Create account").click()
    expect(page.get_by_text(f"Signed in as {email}")).to_be_visible()


@pytest.mark.csp_blocks("form-action")
def test_a_card_page_on_another_address_is_reported_not_ignored(
    page, screenshot, settings, live_server
):
    # The service believes it is at 127.0.0.1, the customer opened it at
    # localhost: `make run ADDR=...` with BASE_URL left behind did this.
    elsewhere = live_server.url.replace("localhost", "127.0.0.1")
    assert elsewhere != live_server.url
    settings.BASE_URL = elsewhere
    token = open_checkout(make_merchant_with_key(), "step-errors-1")
    page.goto(f"/checkout/{token}")
    register(page, "ada.blocked@mail.example.com")

    page.get_by_role("button", name="Add a card").click()

    error = page.get_by_test_id("step-error")
    expect(error).to_be_visible()
    expect(error).to_have_attribute("role", "alert")
    expect(error).to_contain_text("Your browser refused to open the next page")
    expect(error).to_contain_text("at another address than this one")
    expect(error).to_contain_text("Nothing was charged")
    expect(page).to_have_url(re.compile(rf"/checkout/{token}$"))
    screenshot("card-page-refused")


@pytest.fixture
def tab(browser, live_server, settings):
    """A page of its own: these tests make the server's answers fail on purpose,
    which the shared `page` fixture counts as a defect."""
    settings.BASE_URL = live_server.url
    context = browser.new_context(base_url=live_server.url, viewport=DESKTOP)
    tab = context.new_page()
    tab.set_default_timeout(60_000)
    errors = []
    tab.on("pageerror", lambda error: errors.append(str(error)))
    yield tab
    context.close()
    assert errors == []


@pytest.mark.parametrize(
    "failure, said",
    [
        ("500", "the server answered 500"),
        ("no answer", "the service did not answer"),
    ],
)
def test_a_preview_that_fails_says_why_and_disables_pay(tab, failure, said):
    token = open_checkout(make_merchant_with_key(), f"step-errors-{failure}")
    tab.goto(f"/checkout/{token}")
    register(tab, f"ada.{failure.replace(' ', '')}@mail.example.com")
    installments = tab.get_by_test_id("preview-installments").locator("li")
    expect(installments).not_to_have_count(0)

    if failure == "500":
        tab.route(
            "**/preview*",
            lambda route: route.fulfill(
                status=500, content_type="text/html", body="<h1>Server Error</h1>"
            ),
        )
    else:
        tab.route("**/preview*", lambda route: route.abort("connectionrefused"))
    tab.get_by_label("Installments after the deposit").select_option("6")

    error = tab.locator("#preview .preview-error")
    expect(error).to_contain_text(said)
    expect(error).to_contain_text("Nothing was charged")
    expect(error).to_have_attribute("role", "alert")
    expect(tab.locator("#pay-button")).to_be_disabled()
