"""The permission table on the API, as a generated matrix: every operation that
takes a merchant JWT x every role, compared with `roles.may` (DESIGN section
20); an API key acts as the merchant and is never refused for a role.

Each operation is sent as the authorization matrix sends it (the same `world`,
parameters and body, ROUTES in matrix.py), with the JWT of
a member of `me`'s merchant in each role.
"""

import pytest
from rest_framework.permissions import SAFE_METHODS

from merchants.api import settings_permissions
from merchants.team.roles import PERMISSIONS, Role, may

from ..conftest import merchant_jwt
from ..factories import MemberFactory
from .matrix import API_ROUTES, ROUTES, Caller, bearer, operations

pytestmark = pytest.mark.django_db


def role_permission(view: type, method: str) -> str | None:
    """What the view's `role_needs(...)` asks for `method` (None: it has none)."""
    for permission in view.permission_classes:
        needs = getattr(permission, "role_permissions", None)
        if needs is not None:
            return needs[0] if method.upper() in SAFE_METHODS else needs[1]
    return None


def error_code(response) -> str | None:
    """The soft shape's `error.code`, or None for any other answer."""
    if "json" not in response.get("Content-Type", ""):
        return None
    error = response.json().get("error")
    return error.get("code") if isinstance(error, dict) else None


def merchant_jwt_operations():
    for param in operations():
        path, method = param.values
        route = ROUTES[path]
        if isinstance(route.auth, tuple) and "merchant_jwt" in route.auth:
            yield param


OPERATIONS = list(merchant_jwt_operations())


def test_every_merchant_jwt_operation_names_a_permission_of_the_table():
    assert len(OPERATIONS) >= 10
    for param in OPERATIONS:
        path, method = param.values
        assert role_permission(API_ROUTES[path], method) in PERMISSIONS, param.id


@pytest.mark.parametrize(("path", "method"), OPERATIONS)
def test_each_operation_answers_each_role_as_the_table_says(world, path, method):
    view = API_ROUTES[path]
    caller = Caller(world, path, method)
    needed = [role_permission(view, method)]
    if path.endswith("/settings") and method == "patch":
        needed += settings_permissions(ROUTES[path].body(world))
    for role in Role.values:
        member = MemberFactory(merchant=world.me.merchant, role=role)
        response = caller.send(authorization=bearer(merchant_jwt(member)))
        refused = error_code(response) == "forbidden_for_role"
        allowed = all(may(role, permission) for permission in needed)
        assert refused is not allowed, (role, method, path, response.status_code)
        if refused:
            assert response.status_code == 403
        assert response.status_code < 500, (role, method, path)


@pytest.mark.parametrize(("path", "method"), OPERATIONS)
def test_an_api_key_is_never_refused_for_a_role(world, path, method):
    if "api_key" not in ROUTES[path].auth:
        pytest.skip("the operation takes no API key")
    response = Caller(world, path, method).send(authorization=bearer(world.me.api_key))
    assert error_code(response) != "forbidden_for_role"
