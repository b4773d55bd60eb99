"""Every signed-in dashboard page, found by walking the URLs (the role matrix
and test mode's band read it), so that a page added later is covered without
a line here."""

from django.urls import URLPattern, URLResolver, get_resolver

from merchants.dashboard.auth import MerchantLoginRequiredMixin


def dashboard_pages() -> dict[str, type]:
    """`{path with <params>: view class}` of every signed-in dashboard page."""
    found = {}

    def walk(patterns, prefix):
        for pattern in patterns:
            route = prefix + str(pattern.pattern)
            if isinstance(pattern, URLResolver):
                walk(pattern.url_patterns, route)
            elif isinstance(pattern, URLPattern):
                view = getattr(pattern.callback, "view_class", None)
                if view is not None and issubclass(view, MerchantLoginRequiredMixin):
                    found["/" + route] = view

    walk(get_resolver().url_patterns, "")
    return found


PAGES = dashboard_pages()
