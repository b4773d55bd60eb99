"""Browser tests: Playwright (from PyPI) driving the machine's own Chromium.

Playwright's browser downloads are not used (`playwright install` cannot reach its
servers here): the tests launch Debian's Chromium at /usr/bin/chromium, which
.ci/run installs when it is missing. Without it the browser tests skip, saying so,
and the rest of the suite still runs.

Pages are served by pytest-django's `live_server` (a real HTTP server thread on the
test database, static files included), so tests that use `page` need
`@pytest.mark.django_db(transaction=True)`: the server must see what the test wrote.

Screenshots go to tests/screenshots/<test name>/ (git-ignored), numbered in the
order they were taken.
"""

import os
import re
import shutil
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from ..factories import PASSWORD

CHROMIUM = Path(os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium"))
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
# How long a step may wait for the page (an element to appear, a navigation's
# load event, an assertion to come true): each step returns as soon as the page
# is ready, so the limit is reached only when something is wrong, and it is
# generous because the suite shares a busy 2-core machine (the API reference
# alone took over 10 s there). tests/config/test_waits.py keeps it so.
STEP_MS = 60_000
NAVIGATION_MS = 120_000
SCREENSHOTS = Path(__file__).resolve().parent.parent / "screenshots"
DESKTOP = {"width": 1280, "height": 860}
PHONE = {"width": 390, "height": 844}
# The consent box of the hosted checkout, ticked before paying (DESIGN 18).
AGREE = "I have read the key facts and agree to this payment plan"


@pytest.fixture(scope="module")
def browser():
    if not CHROMIUM.exists():
        pytest.skip(
            f"browser tests need Chromium at {CHROMIUM}: install it with "
            "`apt-get install chromium` (.ci/run does)"
        )
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=STEP_MS)

    # Playwright's sync API runs an event loop in this thread, and Django refuses
    # ORM calls from a thread with a running loop. The test's own ORM calls are
    # plain synchronous code between browser steps, so allow them while the
    # browser is up (and only then).
    with pytest.MonkeyPatch.context() as env:
        env.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
        with sync_playwright() as playwright:
            chromium = playwright.chromium.launch(
                executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
            )
            yield chromium
            chromium.close()


@pytest.fixture
def page(request, browser, live_server):
    """A fresh browser profile (no cookies) on the live server. Fails the test if
    the page had a JavaScript error, a resource failed to load, or the
    Content-Security-Policy blocked anything (an inline script or style, a
    form target, a frame)."""
    context = browser.new_context(base_url=live_server.url, viewport=DESKTOP)
    context.grant_permissions(["clipboard-read", "clipboard-write"])
    tab = context.new_page()
    tab.set_default_timeout(STEP_MS)
    tab.set_default_navigation_timeout(NAVIGATION_MS)
    problems = []
    tab.on("pageerror", lambda error: problems.append(f"JavaScript error: {error}"))
    # Pages answer form errors with 4xx on purpose; anything a page loads must not.
    tab.on(
        "response",
        lambda response: (
            response.status >= 400
            and response.request.resource_type != "document"
            and problems.append(f"{response.status} for {response.url}")
        ),
    )
    # Chromium reports every blocked load, inline script/style or form target on
    # the console ("Refused to ... because it violates the following Content
    # Security Policy directive"), in any frame of the page.
    # A test may name blocks it expects (`@pytest.mark.csp_blocks("cdn.x")`): a
    # vendor bundle reaching outside, refused on purpose.
    expected = [
        text
        for marker in request.node.iter_markers("csp_blocks")
        for text in marker.args
    ]
    tab.on(
        "console",
        lambda message: (
            message.type == "error"
            and "Content Security Policy" in message.text
            and not any(text in message.text for text in expected)
            and problems.append(f"CSP violation: {message.text}")
        ),
    )
    yield tab
    context.close()
    assert problems == []


@pytest.fixture
def demo_password():
    """Seeds the demo month (`make run`'s) and gives its merchant's password."""
    out = StringIO()
    call_command("seed_demo", stdout=out)
    found = re.search(r"password: (\S+)", out.getvalue())
    assert found, out.getvalue()
    return found.group(1)


@pytest.fixture
def screenshot(request, page):
    """`screenshot("keys")` saves the whole page as a numbered PNG and returns its
    path."""
    folder = SCREENSHOTS / re.sub(r"[^\w.-]+", "_", request.node.name)
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    taken = []

    def take(name: str) -> Path:
        taken.append(name)
        path = folder / f"{len(taken):02d}-{name}.png"
        # A whole-page picture of a long page (the API reference) takes a while
        # when the machine is busy.
        page.screenshot(path=str(path), full_page=True, timeout=NAVIGATION_MS)
        return path

    return take


def sign_in(page, merchant, password: str = PASSWORD) -> None:
    """Sign in through the dashboard's form, as a person would."""
    page.goto("/dashboard/login/")
    page.get_by_label("Email").fill(merchant.email)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url("**/dashboard/")
