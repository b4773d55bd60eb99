"""The authorization matrix: every /api/v1 route of the URL conf x every way a
request can be unauthorized -> the documented denial, never a 200 or a 500.

| scenario                              | expected                      |
|---------------------------------------|-------------------------------|
| no credential                         | 401                           |
| malformed credential                  | 401                           |
| revoked API key                       | 401                           |
| expired JWT (either role)             | 401                           |
| JWT signed with `alg: none`           | 401                           |
| valid credential of a kind not taken  | 403                           |
| another merchant's or customer's      | 403 or 404                    |
| credential, naming my resources       |                               |
| processor endpoint, bad/no signature  | 401                           |

ROUTES is the explicit table: for each route, the credentials it takes (or PUBLIC,
or SIGNATURE for processor callbacks), how to fill its path parameters with the
resources of the merchant/customer `me`, and a body that names them. A route in
the URL conf without an entry fails `test_every_api_route_has_an_entry`: add one
when you add an endpoint (docs/operations.md, "Adding an endpoint").
"""

import pytest

from config.api.schema import accepted_kinds
from payments.gateway.services.inbound import SIGNATURE_HEADER

from .conftest import (
    ROLE_OF_KIND,
    alg_none_jwt,
    expired_jwt,
    revoked_api_key,
)
from .matrix import (
    API_ROUTES,
    KINDS,
    NOT_MINE,
    PUBLIC,
    ROUTES,
    SIGNATURE,
    Caller,
    bearer,
    operations,
    unlisted_routes,
)


def test_every_api_route_has_an_entry():
    missing = unlisted_routes()
    assert not missing, (
        "Routes without an entry in the authorization matrix (ROUTES in "
        f"{__name__}): {missing}"
    )
    stale = sorted(set(ROUTES) - set(API_ROUTES))
    assert not stale, f"Matrix entries for routes that no longer exist: {stale}"


def test_a_route_added_without_an_entry_is_reported(settings):
    settings.ROOT_URLCONF = "tests.api_contract.urls_with_new_route"
    assert unlisted_routes() == ["/api/v1/brand-new-thing"]


def test_matrix_agrees_with_what_each_view_accepts():
    for path, route in ROUTES.items():
        kinds = accepted_kinds(API_ROUTES[path])
        if isinstance(route.auth, tuple):
            assert kinds == route.auth, path
        else:
            assert kinds is None, path


def assert_denied(response, expected, scenario):
    expected = expected if isinstance(expected, tuple) else (expected,)
    assert response.status_code in expected, (
        scenario,
        response.status_code,
        response.content[:300],
    )


@pytest.mark.parametrize(("path", "method"), list(operations()))
def test_each_operation_denies_every_unauthorized_request(world, path, method):
    route = ROUTES[path]
    caller = Caller(world, path, method)
    me, other = world.me, world.other

    if route.auth == PUBLIC:
        # Listed as public on purpose: no credential is asked for. Whatever the
        # request lacks, the answer is not an authentication failure or a 500.
        response = caller.send()
        assert response.status_code < 500
        assert response.status_code not in (401, 403), response.content
        return

    if route.auth == SIGNATURE:
        assert_denied(caller.send(), 401, "no signature")
        for bad in ("", "0" * 128, "not-hex"):
            response = caller.send(headers={_meta(SIGNATURE_HEADER): bad})
            assert_denied(response, 401, f"bad signature {bad!r}")
        for kind in KINDS:
            response = caller.send(authorization=bearer(me.token(kind)))
            assert_denied(response, 401, f"{kind} instead of a signature")
        return

    accepted = route.auth
    assert_denied(caller.send(), 401, "no credential")
    for malformed in (
        "Bearer",
        "Bearer ",
        "Bearer garbage",
        "Bearer a.b.c",
        "Bearer service_live_sk_not-a-real-key",
        f"Token {me.api_key}",
        f"Bearer {me.merchant_jwt}x",
    ):
        response = caller.send(authorization=malformed)
        if malformed.startswith("Token "):
            # Not a bearer credential at all: the same as none.
            assert_denied(response, 401, "credential with another scheme")
        else:
            assert_denied(response, 401, f"malformed credential {malformed!r}")

    revoked = revoked_api_key(me)
    assert_denied(caller.send(authorization=bearer(revoked)), 401, "revoked API key")

    for kind, role in ROLE_OF_KIND.items():
        public_id = (
            me.merchant.public_id if kind == "merchant_jwt" else me.customer.public_id
        )
        response = caller.send(authorization=bearer(expired_jwt(role, public_id)))
        assert_denied(response, 401, f"expired {kind}")
        response = caller.send(authorization=bearer(alg_none_jwt(role, public_id)))
        assert_denied(response, 401, f"{kind} with alg none")

    for kind in KINDS:
        if kind not in accepted:
            response = caller.send(authorization=bearer(me.token(kind)))
            assert_denied(response, 403, f"{kind}, a kind this route does not take")

    if route.owned:
        for kind in accepted:
            response = caller.send(authorization=bearer(other.token(kind)))
            assert_denied(response, NOT_MINE, f"another party's {kind}")


def _meta(header: str) -> str:
    return "HTTP_" + header.upper().replace("-", "_")
