"""The permission table on the API: a merchant-JWT request acts as its member,
whose role must grant what the operation needs (403 `forbidden_for_role`). An API
key acts as the merchant and is not asked (only `developer` and above make one).
"""

from rest_framework.permissions import SAFE_METHODS, BasePermission

from config.api.auth import CLAIM_CODE_AT

from ..errors import FreshCodeRequired
from . import two_factor
from .roles import PERMISSIONS
from .services import require


def role_needs(read: str, change: str | None = None) -> type[BasePermission]:
    """The operation needs `read` for GET (and HEAD, OPTIONS), `change` (or
    `read`) for the others. Listed after `accepts(...)`: the credential's kind
    is checked first."""
    for name in (read, change):
        if name is not None and name not in PERMISSIONS:
            raise KeyError(f"no such permission: {name}")

    class RoleNeeds(BasePermission):
        # Read by the tests' authorization matrix.
        role_permissions = (read, change or read)

        def has_permission(self, request, view):
            member = getattr(request.user, "member", None)
            needed = read if request.method in SAFE_METHODS else (change or read)
            require(member, needed)
            return True

    RoleNeeds.__name__ = f"RoleNeeds_{read}_{change or read}"
    return RoleNeeds


def require_fresh_code(request) -> None:
    """FreshCodeRequired (403 `fresh_code_required`) when the request's member
    has two-factor sign-in and its JWT's sign-in verified no code in the last
    10 minutes (`mfa_at`). An API key acts as the merchant: not asked."""
    member = getattr(request.user, "member", None)
    if member is None:
        return
    token = getattr(request.auth, "token", None)
    code_at = token.get(CLAIM_CODE_AT) if token is not None else None
    if not two_factor.code_is_fresh(member, code_at):
        raise FreshCodeRequired()
