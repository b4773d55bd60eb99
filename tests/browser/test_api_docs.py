"""The API reference pages in a real browser: they render under their
Content-Security-Policy and load nothing from outside the service."""

from urllib.parse import urlsplit

import pytest

pytestmark = pytest.mark.django_db(transaction=True)


def _watch(page, live_server):
    """Answers that came from other hosts, and CSP violations the console reports."""
    own = urlsplit(live_server.url).netloc
    outside, console = [], []
    page.on(
        "response",
        lambda response: (
            urlsplit(response.url).scheme in ("http", "https")
            and urlsplit(response.url).netloc != own
            and outside.append(response.url)
        ),
    )
    page.on("console", lambda message: console.append(message.text))
    return outside, console


def test_swagger_ui_lists_the_operations(page, live_server, screenshot):
    outside, console = _watch(page, live_server)
    page.goto("/api/docs/")
    page.get_by_text("/api/v1/checkout/sessions", exact=True).first.wait_for()
    assert page.locator(".opblock").count() >= 25
    screenshot("swagger-ui")
    assert outside == []
    assert not [line for line in console if "Content Security Policy" in line]


def test_redoc_renders_the_reference(page, live_server, screenshot):
    outside, console = _watch(page, live_server)
    page.goto("/api/redoc/")
    page.get_by_role("heading", name="Create a checkout session").wait_for()
    screenshot("redoc")
    assert outside == []
    # ReDoc's bundle names a logo on its maker's CDN; the bundle is served with
    # a logo of ours instead (config/web/api_docs.py), so nothing is refused.
    refused = [line for line in console if "Content Security Policy" in line]
    assert refused == []
