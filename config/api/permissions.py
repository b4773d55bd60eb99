"""Which credential kinds an endpoint accepts (api_key, merchant_jwt, customer_jwt).

No credential -> 401; a valid credential of another kind -> 403 (DESIGN section 4).
"""

from rest_framework import exceptions
from rest_framework.permissions import BasePermission

_NAMES = {
    "api_key": "an API key",
    "merchant_jwt": "a merchant JWT",
    "customer_jwt": "a customer JWT",
}


def credential_kind(request) -> str | None:
    return getattr(request.auth, "credential_kind", None)


def accepts(*kinds: str) -> type[BasePermission]:
    wanted = " or ".join(_NAMES[kind] for kind in kinds)

    class Accepts(BasePermission):
        # Read by the OpenAPI schema (config/api/schema.py) and the tests.
        accepted_kinds = kinds

        def has_permission(self, request, view):
            kind = credential_kind(request)
            if kind is None:
                raise exceptions.NotAuthenticated(
                    f"Authentication credentials were not provided: send {wanted} "
                    "as 'Authorization: Bearer <token>'."
                )
            if kind not in kinds:
                raise exceptions.PermissionDenied(
                    f"This endpoint needs {wanted}; the request carries {_NAMES[kind]}."
                )
            return True

    Accepts.__name__ = "Accepts_" + "_".join(kinds)
    return Accepts
