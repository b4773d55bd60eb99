"""The authorization matrix's table (ROUTES) and how it sends a request
(`Caller`), shared by tests/api_contract/test_authorization_matrix.py and
test_role_matrix.py. See the first for what the table means."""

import re
from collections.abc import Callable
from dataclasses import dataclass, field

import pytest
from django.urls import URLPattern, URLResolver, get_resolver
from django.utils import timezone
from rest_framework.test import APIClient

from .conftest import World

PUBLIC = "public"
SIGNATURE = "processor_signature"
KINDS = ("api_key", "merchant_jwt", "customer_jwt")
METHODS = ("get", "post", "put", "patch", "delete")
NOT_MINE = (403, 404)


@dataclass(frozen=True)
class Route:
    auth: tuple[str, ...] | str
    # Path parameters naming `me`'s resources.
    params: Callable[[World], dict] = lambda w: {}
    # A body naming `me`'s resources (sent with POST, PUT and PATCH).
    body: Callable[[World], dict] = lambda w: {}
    # Whether the request names a resource of `me`, so that another party's
    # valid credential must be refused (False: the route only acts on the caller).
    owned: bool = True
    methods: tuple[str, ...] = field(default=())


def mine(w: World) -> dict:
    return {"merchant_id": w.me.merchant.public_id}


def my_customer(w: World) -> dict:
    return {"customer_id": w.me.customer.public_id}


def mandate_body(w: World, **step) -> dict:
    return {**my_customer(w), "reference": "mdt_matrix_reference", **step}


ROUTES: dict[str, Route] = {
    # Accounts and tokens: public, each authenticates by what its body carries.
    "/api/v1/auth/merchant/register": Route(PUBLIC),
    "/api/v1/auth/merchant/login": Route(PUBLIC),
    "/api/v1/auth/merchant/login/mfa": Route(PUBLIC),
    "/api/v1/auth/customer/register": Route(PUBLIC),
    "/api/v1/auth/customer/login": Route(PUBLIC),
    "/api/v1/auth/customer/password-reset": Route(PUBLIC),
    "/api/v1/auth/token/refresh": Route(PUBLIC),
    "/api/v1/schema": Route(PUBLIC),
    # Merchants.
    "/api/v1/merchant/{merchant_id}/rotate-api-key": Route(
        ("api_key", "merchant_jwt"), params=mine
    ),
    "/api/v1/merchant/{merchant_id}/api-key/history": Route(
        ("api_key", "merchant_jwt"), params=mine
    ),
    "/api/v1/merchant/{merchant_id}/settings": Route(("merchant_jwt",), params=mine),
    # Wallet and payout account (payments).
    "/api/v1/merchant/{merchant_id}/wallet": Route(
        ("api_key", "merchant_jwt"), params=mine
    ),
    "/api/v1/merchant/{merchant_id}/payouts": Route(
        ("api_key", "merchant_jwt"), params=mine
    ),
    "/api/v1/merchant/{merchant_id}/payouts/{payout_id}/settlement": Route(
        ("api_key", "merchant_jwt"),
        params=lambda w: {**mine(w), "payout_id": w.payout.public_id},
    ),
    "/api/v1/merchant/{merchant_id}/payout-account": Route(
        ("merchant_jwt",),
        params=mine,
        body=lambda w: {"bank_code": "058", "account_number": "0123456789"},
    ),
    # Checkout.
    "/api/v1/checkout/sessions": Route(
        ("api_key",),
        body=lambda w: {
            **mine(w),
            "amount": 500_000,
            "currency": "NGN",
            "title": "Matrix",
            "order_reference": "matrix-1",
        },
    ),
    "/api/v1/checkout/sessions/{token}": Route(
        PUBLIC, params=lambda w: {"token": "fcs_unknown"}
    ),
    # Any signed-in customer holding the token may read the figures (as the
    # hosted page shows them); another merchant's key gets 404: that is
    # tests/checkout/test_key_facts.py's, the matrix sends no query here.
    "/api/v1/checkout/sessions/{token}/key-facts": Route(
        ("api_key", "customer_jwt"),
        params=lambda w: {"token": w.open_session()},
        owned=False,
    ),
    "/api/v1/checkout/preview": Route(
        ("api_key", "customer_jwt"),
        body=lambda w: {
            **mine(w),
            **my_customer(w),
            "amount": 500_000,
            "schedule_type": "monthly",
            "installment_count": 3,
        },
    ),
    "/api/v1/checkout/sessions/{token}/complete": Route(
        ("customer_jwt",),
        params=lambda w: {"token": w.open_session()},
        # Names `me`'s card: another customer may not pay with it.
        body=lambda w: {
            "schedule_type": "monthly",
            "installment_count": 3,
            "payment_method_id": w.card.public_id,
            "terms_accepted": True,
        },
    ),
    # Payment links.
    "/api/v1/payment-links": Route(
        ("api_key",),
        body=lambda w: {
            **mine(w),
            "title": "Matrix chair",
            "amount": 500_000,
            "currency": "NGN",
        },
    ),
    "/api/v1/payment-links/merchant/{merchant_id}": Route(("api_key",), params=mine),
    "/api/v1/payment-links/{link_id}/toggle": Route(
        ("api_key",),
        params=lambda w: {"link_id": w.link.public_id},
        body=lambda w: {"is_active": False},
    ),
    # Payment plans.
    "/api/v1/payment-plans": Route(("api_key",), owned=False),
    "/api/v1/installments": Route(("api_key",), owned=False),
    "/api/v1/payment-plans/{plan_id}": Route(
        ("api_key", "customer_jwt"), params=lambda w: {"plan_id": w.plan.public_id}
    ),
    # The plan's agreement and its PDF: the plan's merchant or its customer.
    "/api/v1/payment-plans/{plan_id}/agreement": Route(
        ("api_key", "customer_jwt"), params=lambda w: {"plan_id": w.plan.public_id}
    ),
    "/api/v1/payment-plans/{plan_id}/agreement.pdf": Route(
        ("api_key", "customer_jwt"), params=lambda w: {"plan_id": w.plan.public_id}
    ),
    "/api/v1/payment-plans/{plan_id}/refunds": Route(
        ("api_key",),
        params=lambda w: {"plan_id": w.plan.public_id},
        body=lambda w: {"amount": 1_000, "reason": "Matrix return"},
    ),
    "/api/v1/payment-plans/{plan_id}/cancel": Route(
        ("api_key",),
        params=lambda w: {"plan_id": w.plan.public_id},
        body=lambda w: {"reason": "Matrix cancellation"},
    ),
    "/api/v1/payment-plans/{plan_id}/resume": Route(
        ("api_key",), params=lambda w: {"plan_id": w.plan.public_id}
    ),
    # Disputes: the merchant's own, by API key or merchant JWT.
    "/api/v1/disputes": Route(("api_key", "merchant_jwt"), owned=False),
    "/api/v1/audit-log": Route(("api_key", "merchant_jwt"), owned=False),
    "/api/v1/disputes/{dispute_id}": Route(
        ("api_key", "merchant_jwt"),
        params=lambda w: {"dispute_id": w.dispute.public_id},
    ),
    "/api/v1/disputes/{dispute_id}/evidence": Route(
        ("api_key", "merchant_jwt"),
        params=lambda w: {"dispute_id": w.dispute.public_id},
        body=lambda w: {"service_details": "Matrix evidence"},
    ),
    "/api/v1/disputes/{dispute_id}/accept": Route(
        ("api_key", "merchant_jwt"),
        params=lambda w: {"dispute_id": w.dispute.public_id},
        body=lambda w: {"message": "Matrix acceptance"},
    ),
    # Pay links: the plan's merchant only (a customer gets theirs by message).
    "/api/v1/payment-plans/{plan_id}/pay-links": Route(
        ("api_key",), params=lambda w: {"plan_id": w.plan.public_id}
    ),
    # Paying early: the plan's customer only; names `me`'s installment.
    "/api/v1/payment-plans/{plan_id}/pay": Route(
        ("customer_jwt",),
        params=lambda w: {"plan_id": w.plan.public_id},
        body=lambda w: {"installment_id": w.unpaid_installment_id()},
    ),
    # One early payment of the plan: its merchant or its customer.
    "/api/v1/payment-plans/{plan_id}/payments/{payment_id}": Route(
        ("api_key", "customer_jwt"),
        params=lambda w: {
            "plan_id": w.plan.public_id,
            "payment_id": w.payment.public_id,
        },
    ),
    # Rescheduling: the plan's merchant or its customer; names `me`'s installment.
    "/api/v1/payment-plans/{plan_id}/installments/{installment_id}/reschedule": Route(
        ("api_key", "customer_jwt"),
        params=lambda w: {
            "plan_id": w.plan.public_id,
            "installment_id": w.unpaid_installment_id(),
        },
        body=lambda w: {"due_date": w.reschedulable_date()},
    ),
    "/api/v1/sandbox/payment-plans/{plan_id}/collect-next": Route(
        ("api_key",), params=lambda w: {"plan_id": w.plan.public_id}
    ),
    "/api/v1/sandbox/payment-plans/{plan_id}/advance": Route(
        ("api_key",),
        params=lambda w: {"plan_id": w.plan.public_id},
        body=lambda w: {"to": timezone.localdate().isoformat()},
    ),
    # The sandbox's hands on a pending bank transfer or USSD payment.
    "/api/v1/sandbox/payments/{payment_id}/complete": Route(
        ("api_key",), params=lambda w: {"payment_id": w.payment.public_id}
    ),
    "/api/v1/sandbox/payments/{payment_id}/expire": Route(
        ("api_key",), params=lambda w: {"payment_id": w.payment.public_id}
    ),
    # The sandbox's bank deciding one of `me`'s disputes.
    "/api/v1/sandbox/disputes/{dispute_id}/resolve": Route(
        ("api_key",),
        params=lambda w: {"dispute_id": w.dispute.public_id},
        body=lambda w: {"outcome": "won"},
    ),
    # Customers and payment methods.
    "/api/v1/customers/me": Route(("customer_jwt",), owned=False),
    "/api/v1/payment-methods/customers/{customer_id}": Route(
        ("customer_jwt",), params=my_customer
    ),
    "/api/v1/payment-methods/banks": Route(("customer_jwt",), owned=False),
    "/api/v1/payment-methods/initialize-card": Route(
        ("customer_jwt",),
        body=lambda w: {
            **my_customer(w),
            "callback_url": "https://shop.example/done",
        },
    ),
    "/api/v1/payment-methods/verify-card": Route(
        ("customer_jwt",), body=lambda w: {**my_customer(w), "reference": "card_x"}
    ),
    "/api/v1/payment-methods/customers/{customer_id}/initiate-bank-mandate": Route(
        ("customer_jwt",),
        params=my_customer,
        body=lambda w: {
            "bank_code": "044",
            "account_number": "0123456780",
            "terms_accepted": True,
        },
    ),
    "/api/v1/payment-methods/bank-mandate/submit-otp": Route(
        ("customer_jwt",), body=lambda w: mandate_body(w, otp="123456")
    ),
    "/api/v1/payment-methods/bank-mandate/submit-birthday": Route(
        ("customer_jwt",), body=lambda w: mandate_body(w, birthday="1990-01-31")
    ),
    "/api/v1/payment-methods/bank-mandate/submit-phone": Route(
        ("customer_jwt",), body=lambda w: mandate_body(w, phone="+2348012345678")
    ),
    "/api/v1/payment-methods/bank-mandate/verify": Route(
        ("customer_jwt",), body=mandate_body
    ),
    "/api/v1/payment-methods/{method_id}/default": Route(
        ("customer_jwt",), params=lambda w: {"method_id": w.card.public_id}
    ),
    "/api/v1/payment-methods/{method_id}": Route(
        ("customer_jwt",), params=lambda w: {"method_id": w.card.public_id}
    ),
    # Outbound webhooks (merchant JWT).
    "/api/v1/webhooks/test": Route(("merchant_jwt",), owned=False),
    "/api/v1/webhooks/events/{event_id}/replay": Route(
        ("merchant_jwt",), params=lambda w: {"event_id": w.event.public_id}
    ),
    "/api/v1/webhooks/failed-attempts": Route(("merchant_jwt",), owned=False),
    # Events API (API key): the list only shows the caller's own events.
    "/api/v1/events": Route(("api_key",), owned=False),
    "/api/v1/events/{event_id}": Route(
        ("api_key",), params=lambda w: {"event_id": w.event.public_id}
    ),
    # Processor callbacks.
    "/api/v1/webhooks/paystack": Route(SIGNATURE),
    "/api/v1/webhooks/payment-gateway": Route(SIGNATURE),
}


def url_conf_api_routes() -> dict[str, type]:
    """`{path template: view class}` of every /api/v1 route, trailing-slash twins
    folded into one."""
    found = {}

    def walk(patterns, prefix):
        for pattern in patterns:
            route = prefix + str(pattern.pattern)
            if isinstance(pattern, URLResolver):
                walk(pattern.url_patterns, route)
            elif isinstance(pattern, URLPattern):
                path = "/" + re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", route)
                if path.startswith("/api/v1/"):
                    view = getattr(pattern.callback, "view_class", pattern.callback)
                    found[path.rstrip("/")] = view

    walk(get_resolver().url_patterns, "")
    return found


API_ROUTES = url_conf_api_routes()


def operations():
    for path, view in sorted(API_ROUTES.items()):
        route = ROUTES.get(path)
        if route is None:
            continue
        for method in METHODS:
            if hasattr(view, method):
                yield pytest.param(path, method, id=f"{method.upper()} {path}")


def unlisted_routes() -> list[str]:
    return sorted(set(url_conf_api_routes()) - set(ROUTES))


class Caller:
    def __init__(self, world: World, path: str, method: str):
        self.world = world
        self.route = ROUTES[path]
        self.method = method
        self.path = path

    def send(self, *, party=None, headers=None, authorization=None):
        world = self.world
        params = self.route.params(world)
        body = (
            self.route.body(world) if self.method in ("post", "put", "patch") else None
        )
        extra = dict(headers or {})
        if authorization is not None:
            extra["HTTP_AUTHORIZATION"] = authorization
        client = APIClient()
        return getattr(client, self.method)(
            self.path.format(**params), body, format="json", **extra
        )


def bearer(token: str) -> str:
    return f"Bearer {token}"
