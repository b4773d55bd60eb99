"""The API's routes as the contract tests walk them."""

import re

from django.urls import URLPattern, URLResolver, get_resolver


def api_views():
    """(path, view class) of every /api/v1 route, `{param}` style, no twins."""
    found = {}

    def walk(patterns, prefix):
        for pattern in patterns:
            route = prefix + str(pattern.pattern)
            if isinstance(pattern, URLResolver):
                walk(pattern.url_patterns, route)
            elif isinstance(pattern, URLPattern):
                view = getattr(pattern.callback, "view_class", None)
                path = "/" + re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", route)
                if path.startswith("/api/v1/") and view is not None:
                    found[path.rstrip("/")] = view

    walk(get_resolver().url_patterns, "")
    return found
