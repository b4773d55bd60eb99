"""Content-Security-Policy and framing of the HTML pages
(config/web/security_headers.py)."""

import pytest
from django.http import HttpResponse
from django.test import RequestFactory
from django.views.decorators.clickjacking import xframe_options_deny

from config.web.security_headers import (
    CSP_HEADER,
    SecurityHeadersMiddleware,
    allow_form_targets,
    allow_framing_by,
    origin_of,
)


def test_dashboard_pages_carry_a_strict_policy_and_refuse_framing(api, db):
    response = api.get("/dashboard/login/")
    assert response.status_code == 200
    policy = response[CSP_HEADER]
    assert "default-src 'self'" in policy
    assert "script-src 'self';" in policy
    assert "'unsafe-inline'" not in policy
    assert "frame-ancestors 'none'" in policy
    assert response["X-Frame-Options"] == "DENY"
    assert response["X-Content-Type-Options"] == "nosniff"


def test_dashboard_templates_hold_no_inline_script_or_style(api, db):
    html = api.get("/dashboard/login/").content.decode()
    assert "<script>" not in html and "<style" not in html and "style=" not in html


def test_api_answers_are_json_without_a_page_policy(api, db):
    response = api.get("/api/v1/checkout/sessions/fcs_unknown")
    assert response.status_code == 404
    assert CSP_HEADER not in response
    assert response["X-Content-Type-Options"] == "nosniff"


def _page(
    request_path: str,
    *,
    allow: list[str] | None = None,
    form_targets: list[list] | None = None,
):
    """A page served through Django's XFrameOptionsMiddleware and ours."""
    from django.middleware.clickjacking import XFrameOptionsMiddleware

    @xframe_options_deny
    def view(request):
        if allow is not None:
            allow_framing_by(request, allow)
        for urls in form_targets or []:
            allow_form_targets(request, urls)
        return HttpResponse("<p>page</p>")

    request = RequestFactory().get(request_path)
    chain = SecurityHeadersMiddleware(XFrameOptionsMiddleware(view))
    return chain(request)


def test_hosted_checkout_may_be_framed_only_by_the_merchants_site():
    response = _page("/checkout/fcs_abc", allow=["https://shop.example/cart?x=1"])
    assert "frame-ancestors 'self' https://shop.example" in response[CSP_HEADER]
    assert "X-Frame-Options" not in response


def test_a_checkout_page_without_a_merchant_site_is_frameable_by_this_site_only():
    response = _page("/l/abc", allow=[None, "javascript:alert(1)"])
    assert "frame-ancestors 'self';" in response[CSP_HEADER] + ";"
    assert "X-Frame-Options" not in response


def test_hosted_checkout_is_not_frameable_unless_its_view_says_so():
    response = _page("/checkout/fcs_abc")
    assert "frame-ancestors 'none'" in response[CSP_HEADER]
    assert response["X-Frame-Options"] == "DENY"


def test_pages_outside_the_checkout_cannot_make_themselves_frameable():
    response = _page("/dashboard/", allow=["https://shop.example"])
    assert "frame-ancestors 'none'" in response[CSP_HEADER]
    assert response["X-Frame-Options"] == "DENY"


def test_forms_post_only_to_this_site_unless_the_view_names_another():
    assert "form-action 'self';" in _page("/account/")[CSP_HEADER]


def test_a_page_may_let_its_forms_lead_to_the_sites_it_names():
    response = _page(
        "/account/",
        form_targets=[
            ["https://checkout.paystack.com/abc", "javascript:alert(1)", None],
            ["http://127.0.0.1:8000/cards/done?x=1", "https://checkout.paystack.com"],
        ],
    )
    assert (
        "form-action 'self' https://checkout.paystack.com http://127.0.0.1:8000;"
        in response[CSP_HEADER]
    )
    assert "frame-ancestors 'none'" in response[CSP_HEADER]


@pytest.mark.parametrize(
    ("path", "coop"),
    [
        # Pages the widget's popup shows keep the merchant page's handle on it.
        ("/checkout/fcs_abc", "unsafe-none"),
        ("/l/abc", "unsafe-none"),
        ("/account/login/", "unsafe-none"),
        ("/sandbox/authorize/card-abc", "unsafe-none"),
        # The demo merchant page opens that popup.
        ("/demo/", "same-origin-allow-popups"),
        ("/dashboard/login/", "same-origin"),
    ],
)
def test_only_the_pages_of_the_widgets_window_may_keep_their_opener(
    api, db, path, coop
):
    response = api.get(path)
    assert response["Content-Type"].startswith("text/html")
    assert response["Cross-Origin-Opener-Policy"] == coop


@pytest.mark.parametrize(
    ("url", "origin"),
    [
        ("https://shop.example/path?q=1", "https://shop.example"),
        ("http://shop.example:8080/", "http://shop.example:8080"),
        ("https://SHOP.example", "https://shop.example"),
        ("javascript:alert(1)", None),
        ("https://shop.example; script-src *", None),
        ("https://exa mple.com", None),
        ("", None),
        (None, None),
        ("https://[::1", None),
    ],
)
def test_only_plain_web_origins_reach_the_header(url, origin):
    assert origin_of(url) == origin
