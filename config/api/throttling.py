"""Per-merchant request budget: 100/min on the sandbox plan, 500/min on production."""

from rest_framework.throttling import BaseThrottle

from . import ratelimit
from .errors import RateLimited


class PrincipalRateThrottle(BaseThrottle):
    """Counts every request whose principal has a per-minute budget (merchants).

    The window is stored on the underlying HttpRequest so that the middleware can
    put `X-RateLimit-*` on whatever response the request ends with.
    """

    def allow_request(self, request, view):
        principal = request.user
        limit = getattr(principal, "rate_limit_per_minute", None)
        if limit is None:
            return True
        window = ratelimit.hit(f"principal:{principal.public_id}", limit=limit)
        request._request.rate_window = window
        if window.exceeded:
            raise RateLimited(
                f"Rate limit of {limit} requests per minute exceeded; retry in "
                f"{window.seconds_to_reset()} s.",
                headers={"Retry-After": str(window.seconds_to_reset())},
            )
        return True


class RateLimitHeadersMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        window = getattr(request, "rate_window", None)
        if window is not None:
            for name, value in window.headers().items():
                response[name] = value
        return response
