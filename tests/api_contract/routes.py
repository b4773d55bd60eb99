"""The API's routes as the contract tests walk them."""

import re

from django.urls import URLPattern, URLResolver, get_resolver


def class_views() -> list[tuple[str, type]]:
    """(route, view class) of every URL served by a class-based view, the
    route as Django writes it (`<param>`), without its leading slash."""
    found = []

    def walk(patterns, prefix):
        for pattern in patterns:
            route = prefix + str(pattern.pattern)
            if isinstance(pattern, URLResolver):
                walk(pattern.url_patterns, route)
            elif isinstance(pattern, URLPattern):
                view = getattr(pattern.callback, "view_class", None)
                if view is not None:
                    found.append((route, view))

    walk(get_resolver().url_patterns, "")
    return found


def api_views():
    """(path, view class) of every /api/v1 route, `{param}` style, no twins."""
    found = {}
    for route, view in class_views():
        path = "/" + re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", route)
        if path.startswith("/api/v1/"):
            found[path.rstrip("/")] = view
    return found
