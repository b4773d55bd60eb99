"""Content-Security-Policy and framing rules for the service's HTML pages.

Every HTML page (dashboard, hosted checkout, customer account, sandbox pages) gets a
strict policy: scripts, styles, images and fonts from this origin only, no inline
script, forms post only here, and `frame-ancestors 'none'` with
`X-Frame-Options: DENY` (set by Django's XFrameOptionsMiddleware).

One exception to framing: pages under FRAMEABLE_PREFIXES (the hosted checkout and
payment links) may be shown inside the merchant's widget iframe, and only on that
merchant's registered site. The view serving such a page opts in with
`allow_framing_by(request, [merchant.business_url])`; the middleware then sends
`frame-ancestors 'self' <origin>` and drops X-Frame-Options (which cannot name an
origin). Without that call the page is not frameable. The prefixes are fixed here,
so a view elsewhere cannot make itself frameable.

The widget may also open the checkout in a popup from the merchant's page, and it
keeps its handle on that window (to hear `onSuccess` and notice it closing). Django
sends `Cross-Origin-Opener-Policy: same-origin`, which cuts that handle the moment
a page of another site opens ours; so the pages a widget's window shows (the
checkout, payment links, and the account and sandbox pages of adding a payment
method on the way) say `unsafe-none` instead, and the widget's demo page, a
merchant's page that opens that window, says `same-origin-allow-popups`. Every
other page keeps `same-origin`.

Forms post only to this site (`form-action 'self'`), and Chromium applies that to
every redirect after a submission too. A page whose form is answered with a
redirect to another site (the processor's card page after "Add a card", a consumer
app's callback after the sandbox's card form) names that site with
`allow_form_targets(request, [url])`.

A view that needs another policy (the API reference pages, `api_docs.py`) sets the
header itself; the middleware leaves it alone. Django's admin keeps its own pages
as they are.
"""

from collections.abc import Iterable
from urllib.parse import urlsplit

CSP_HEADER = "Content-Security-Policy"
FRAMEABLE_PREFIXES = ("/checkout/", "/l/")
OPENABLE_PREFIXES = ("/checkout/", "/l/", "/account/", "/sandbox/")
OPENER_PREFIXES = ("/demo/",)
COOP_HEADER = "Cross-Origin-Opener-Policy"
UNPOLICED_PREFIXES = ("/admin/",)
_FRAME_ANCESTORS_ATTRIBUTE = "csp_frame_ancestors"
_FORM_TARGETS_ATTRIBUTE = "csp_form_targets"

DEFAULT_DIRECTIVES = {
    "default-src": ("'self'",),
    "script-src": ("'self'",),
    "style-src": ("'self'",),
    "img-src": ("'self'", "data:"),
    "font-src": ("'self'",),
    "connect-src": ("'self'",),
    "object-src": ("'none'",),
    "base-uri": ("'none'",),
    "form-action": ("'self'",),
    "frame-ancestors": ("'none'",),
}


def policy(**directives: Iterable[str]) -> str:
    """The default policy with some directives replaced: `policy(style_src=(...))`."""
    merged = dict(DEFAULT_DIRECTIVES)
    for name, sources in directives.items():
        merged[name.replace("_", "-")] = tuple(sources)
    return "; ".join(f"{name} {' '.join(sources)}" for name, sources in merged.items())


def origin_of(url: str | None) -> str | None:
    """`https://shop.example:8443` from a URL; None unless it is a plain http(s)
    URL (so nothing odd can reach the header)."""
    if not url:
        return None
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        return None
    host = parts.hostname
    if parts.scheme not in ("http", "https") or not host:
        return None
    if not all(ch.isalnum() or ch in "-." for ch in host):
        return None
    return f"{parts.scheme}://{host}" + (f":{port}" if port else "")


def allow_framing_by(request, urls: Iterable[str | None]) -> None:
    """Let this response be framed by this site and the origins of `urls` (the
    hosted checkout calls it with the session's merchant's `business_url`)."""
    origins = [origin for origin in map(origin_of, urls) if origin]
    setattr(request, _FRAME_ANCESTORS_ATTRIBUTE, origins)


def allow_form_targets(request, urls: Iterable[str | None]) -> None:
    """Let this response's forms lead (directly or through a redirect) to the
    origins of `urls` as well as this site."""
    origins = [origin for origin in map(origin_of, urls) if origin]
    existing = getattr(request, _FORM_TARGETS_ATTRIBUTE, [])
    setattr(request, _FORM_TARGETS_ATTRIBUTE, [*existing, *origins])


class SecurityHeadersMiddleware:
    """Adds the Content-Security-Policy; decides framing for frameable pages.

    Sits above XFrameOptionsMiddleware in MIDDLEWARE, so it sees (and may drop)
    the X-Frame-Options header that middleware adds.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        path = request.path
        if path.startswith(UNPOLICED_PREFIXES):
            return response
        if not response.get("Content-Type", "").startswith("text/html"):
            return response
        # Below SecurityMiddleware, which only adds COOP when it is absent.
        if path.startswith(OPENABLE_PREFIXES):
            response[COOP_HEADER] = "unsafe-none"
        elif path.startswith(OPENER_PREFIXES):
            response[COOP_HEADER] = "same-origin-allow-popups"
        if CSP_HEADER in response:
            return response
        directives = {}
        targets = getattr(request, _FORM_TARGETS_ATTRIBUTE, None)
        if targets:
            directives["form_action"] = ("'self'", *dict.fromkeys(targets))
        ancestors = getattr(request, _FRAME_ANCESTORS_ATTRIBUTE, None)
        if ancestors is not None and path.startswith(FRAMEABLE_PREFIXES):
            directives["frame_ancestors"] = ("'self'", *ancestors)
            if "X-Frame-Options" in response:
                del response["X-Frame-Options"]
        response[CSP_HEADER] = policy(**directives)
        return response
