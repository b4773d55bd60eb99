"""The public site in a real browser (DESIGN section 16), at 1280x800 and at a
phone's 390x844: the landing page, signing up to the pending banner, the guides,
and the API reference (Swagger UI, ReDoc). Every page loads with no console error
and no request to another site, and at 390 px no page is wider than the screen.

Screenshots: tests/screenshots/test_<name>_<size>_/.
"""

from urllib.parse import urlsplit

import pytest

from merchants import guides
from merchants.models import Merchant

pytestmark = pytest.mark.django_db(transaction=True)

SIZES = {
    "desktop": {"width": 1280, "height": 800},
    "phone": {"width": 390, "height": 844},
}


@pytest.fixture(params=list(SIZES))
def size(request, page):
    page.set_viewport_size(SIZES[request.param])
    return SIZES[request.param]


@pytest.fixture
def seen(page, live_server):
    """Console errors of the page and requests it sent to other sites; a test
    asserts both stay empty (the `page` fixture already fails on JavaScript
    errors, failed loads and refusals of the Content-Security-Policy)."""
    own = urlsplit(live_server.url).netloc
    found = {"console errors": [], "other sites": []}
    page.on(
        "console",
        lambda message: (
            message.type == "error" and found["console errors"].append(message.text)
        ),
    )
    page.on(
        "request",
        lambda request: (
            urlsplit(request.url).scheme in ("http", "https")
            and urlsplit(request.url).netloc != own
            and found["other sites"].append(request.url)
        ),
    )
    return found


NOTHING = {"console errors": [], "other sites": []}


def assert_fits(page, size) -> None:
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= size["width"], f"{page.url} is {width} px wide"


def test_the_landing_page(page, size, screenshot, seen):
    page.goto("/")

    page.get_by_role(
        "heading", name="Let your customers pay in installments"
    ).wait_for()
    assert page.locator('link[rel="icon"]').get_attribute("href").startswith("/static/")
    screenshot("landing")
    assert_fits(page, size)
    page.get_by_role("link", name="API reference").first.click()
    page.wait_for_url("**/api/redoc/")
    assert seen == NOTHING


def test_signing_up_leads_to_the_pending_banner(page, size, screenshot, seen):
    email = f"owner-{size['width']}@adaeze-fabrics.ng"
    page.goto("/")
    page.get_by_role("link", name="Apply for a merchant account").click()
    page.wait_for_url("**/dashboard/signup/")
    assert page.get_by_role("link", name="Sign in").last.get_attribute("href") == (
        "/dashboard/login/"
    )

    page.get_by_label("Business name").fill("Adaeze Fabrics")
    page.get_by_label("Your website").fill("https://adaeze-fabrics.ng")
    page.get_by_label("E-mail").fill(email)
    page.get_by_label("Password").fill("password123")
    page.get_by_role("button", name="Create my account").click()
    page.get_by_text("This password is too common.").wait_for()
    screenshot("sign-up-refused")
    assert_fits(page, size)
    # The refused form is answered 400 on purpose, and Chromium says so.
    assert seen.pop("console errors") == [
        "Failed to load resource: the server responded with a status of 400 "
        "(Bad Request)"
    ]
    seen["console errors"] = []

    page.get_by_label("Password").fill("Kente-and-Aso-0ke")
    page.get_by_role("button", name="Create my account").click()
    # The same answer whether or not the address has an account: check the
    # inbox, then sign in.
    page.wait_for_url("**/dashboard/signup/done/")
    page.get_by_test_id("sign-up-done").wait_for()
    screenshot("sign-up-done")
    assert_fits(page, size)
    page.get_by_role("main").get_by_role("link", name="Sign in").click()
    page.wait_for_url("**/dashboard/login/")
    page.get_by_label("Email").fill(email)
    page.get_by_label("Password").fill("Kente-and-Aso-0ke")
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url("**/dashboard/")

    banner = page.get_by_test_id("status-banner")
    assert "pending approval" in banner.inner_text()
    assert Merchant.objects.get(email=email).status == Merchant.Status.PENDING
    screenshot("pending-banner")
    assert_fits(page, size)
    page.get_by_role("navigation", name="Dashboard").get_by_role(
        "link", name="Guides"
    ).click()
    page.wait_for_url("**/docs/")
    assert seen == NOTHING


def test_the_guides(page, size, screenshot, seen):
    page.goto("/docs/")
    page.get_by_role("heading", name="Guides", exact=True).wait_for()
    screenshot("guides")
    assert_fits(page, size)

    for guide in guides.GUIDES:
        page.goto(f"/docs/{guide.slug}/")
        assert page.locator("main h1").count() == 1
        assert_fits(page, size)
        if guide.slug in ("quickstart", "webhooks"):
            screenshot(guide.slug)

    page.goto("/docs/quickstart/")
    page.locator("main").get_by_role("link", name="Errors").first.click()
    page.wait_for_url("**/docs/errors/")
    page.get_by_role("heading", name="Error codes").wait_for()
    assert seen == NOTHING


def test_swagger_ui(page, size, screenshot, seen):
    page.goto("/api/docs/")

    page.get_by_text("/api/v1/checkout/sessions", exact=True).first.wait_for()
    assert page.locator(".opblock").count() >= 25
    summaries = page.locator(".opblock-summary-description").all_inner_texts()
    assert "Create a checkout session" in summaries
    assert not [text for text in summaries if "endpoint" in text]
    screenshot("swagger-ui")
    assert_fits(page, size)
    assert seen == NOTHING


def test_redoc(page, size, screenshot, seen):
    page.goto("/api/redoc/")

    page.get_by_role("heading", name="Create a checkout session").first.wait_for()
    logo = page.locator('img[alt="redocly logo"]')
    logo.wait_for(state="attached")
    assert logo.get_attribute("src") == "/static/img/redoc-logo.svg"
    assert page.locator("a[href='/docs/quickstart/']").count() >= 1
    screenshot("redoc")
    assert_fits(page, size)
    assert seen == NOTHING
