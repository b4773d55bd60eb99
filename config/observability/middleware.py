"""Request metrics, and the operations endpoints answered ahead of the site."""

import functools
import time

from django.urls import Resolver404, resolve, reverse

from .metrics import LATENCY, REQUESTS

UNMATCHED = "unmatched"  # no URL pattern: a 404 (never the path itself)
_METHODS = {"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"}


def route_name(request) -> str:
    """The URL pattern's name (`view_name`, with its namespace). A pattern without
    a name is named by its sibling without the trailing slash (`api_path`), else by
    its route template: a bounded set either way, never the requested path."""
    match = getattr(request, "resolver_match", None)
    if match is None:
        # Answered before the URL was resolved (413 for a body over the limit).
        try:
            match = resolve(request.path_info)
        except Resolver404:
            return UNMATCHED
    if match.url_name:
        return match.view_name
    if request.path_info.endswith("/"):
        try:
            sibling = resolve(request.path_info[:-1])
        except Resolver404:
            sibling = None
        if sibling is not None and sibling.url_name:
            return sibling.view_name
    return match.route or UNMATCHED


class RequestMetricsMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        started = time.perf_counter()
        response = self.get_response(request)
        elapsed = time.perf_counter() - started
        route = route_name(request)
        method = request.method if request.method in _METHODS else "other"
        REQUESTS.labels(route, method, str(response.status_code)).inc()
        LATENCY.labels(route, method).observe(elapsed)
        return response


OPS_ROUTES = ("healthz", "readyz", "metrics")


@functools.cache
def ops_paths() -> frozenset[str]:
    """Their paths as config/urls.py routes them, with and without the slash."""
    paths = {reverse(name) for name in OPS_ROUTES}
    return frozenset(paths | {f"{path}/" for path in paths})


class OpsEndpointsMiddleware:
    """Serves /healthz, /readyz and /metrics (routed in config/urls.py) before the
    rest of the middleware: a probe or a scraper reaches a process by its own
    address, so the `Host` check (ALLOWED_HOSTS) and the redirect to https must
    not answer for them, and they need no session, CSRF or page headers. Their
    answers build no URL from the request, which is what the host check guards."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if request.path_info not in ops_paths():
            return self.get_response(request)
        match = resolve(request.path_info)
        request.resolver_match = match
        return match.func(request, *match.args, **match.kwargs)
