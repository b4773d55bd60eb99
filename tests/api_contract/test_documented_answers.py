"""Every endpoint's real success answers match the schema's description of them.

The fuzz run mostly meets error answers; this walks the happy paths (sandbox
processor) and validates each answer body against the OpenAPI schema, status by
status, so a field renamed, added or made nullable in code fails here.
"""

import pytest
from django.urls import get_resolver
from openapi_schema_validator import OAS30Validator, oas30_format_checker
from rest_framework.test import APIClient

from config.api.schema_generator import Generator
from payments.gateway.services.inbound import signature_for

from ..conftest import bearer, customer_jwt
from ..factories import PASSWORD, CustomerFactory
from ..payments.conftest import (
    CALLBACK_URL,
    CARD_OK,
    CARD_POOR,
    add_card,
    reference_from_redirect,
    sign_in,
    submit_card_form,
)
from .conftest import active_plan


@pytest.fixture(scope="module")
def openapi():
    get_resolver()  # the URL conf, hence every view, is loaded
    return Generator().get_schema(public=True)


def _resolve(node, components):
    if isinstance(node, dict):
        if "$ref" in node:
            return _resolve(components[node["$ref"].rsplit("/", 1)[1]], components)
        return {key: _resolve(value, components) for key, value in node.items()}
    if isinstance(node, list):
        return [_resolve(value, components) for value in node]
    return node


class Checked:
    """Sends requests and checks each answer against the schema."""

    def __init__(self, openapi):
        self.openapi = openapi
        self.components = openapi["components"]["schemas"]
        self.seen = set()

    def __call__(self, response, method: str, template: str, status: int):
        assert response.status_code == status, response.content
        operation = self.openapi["paths"][template][method]
        described = operation["responses"][str(status)]
        schema = _resolve(
            described["content"]["application/json"]["schema"], self.components
        )
        OAS30Validator(schema, format_checker=oas30_format_checker).validate(
            response.json()
        )
        self.seen.add((template, method, status))
        return response.json()


@pytest.fixture
def check(openapi):
    return Checked(openapi)


def client(token=None) -> APIClient:
    api = APIClient()
    if token:
        api.credentials(**bearer(token))
    return api


def test_merchant_and_customer_accounts(check, world, db):
    anon = client()
    body = check(
        anon.post(
            "/api/v1/auth/merchant/register",
            {
                "email": "new@shop.example",
                "password": "a long passphrase 42",
                "business_name": "New Shop",
                "business_url": "https://new.shop.example",
            },
            format="json",
        ),
        "post",
        "/api/v1/auth/merchant/register",
        201,
    )
    assert body["data"]["status"] == "pending"
    login = check(
        anon.post(
            "/api/v1/auth/merchant/login",
            {"email": world.me.merchant.email, "password": PASSWORD},
            format="json",
        ),
        "post",
        "/api/v1/auth/merchant/login",
        200,
    )
    check(
        anon.post(
            "/api/v1/auth/token/refresh",
            {"refresh": login["data"]["refresh"]},
            format="json",
        ),
        "post",
        "/api/v1/auth/token/refresh",
        200,
    )
    customer = check(
        anon.post(
            "/api/v1/auth/customer/register",
            {
                "email": "new@mail.example",
                "password": "a long passphrase 42",
                "first_name": "Ada",
                "last_name": "Obi",
                "phone": "+2348012345678",
            },
            format="json",
        ),
        "post",
        "/api/v1/auth/customer/register",
        201,
    )
    check(
        anon.post(
            "/api/v1/auth/customer/login",
            {"email": "new@mail.example", "password": "a long passphrase 42"},
            format="json",
        ),
        "post",
        "/api/v1/auth/customer/login",
        200,
    )
    check(
        anon.post(
            "/api/v1/auth/customer/password-reset",
            {"email": "new@mail.example"},
            format="json",
        ),
        "post",
        "/api/v1/auth/customer/password-reset",
        200,
    )
    check(
        client(customer["data"]["access"]).get("/api/v1/customers/me"),
        "get",
        "/api/v1/customers/me",
        200,
    )


def test_merchant_keys_settings_and_checkout(check, world, db):
    me = world.me
    mid = me.merchant.public_id
    jwt = client(me.merchant_jwt)
    key = check(
        jwt.post(f"/api/v1/merchant/{mid}/rotate-api-key", {}, format="json"),
        "post",
        "/api/v1/merchant/{merchant_id}/rotate-api-key",
        201,
    )["data"]["apiKey"]
    check(
        jwt.get(f"/api/v1/merchant/{mid}/api-key/history"),
        "get",
        "/api/v1/merchant/{merchant_id}/api-key/history",
        200,
    )
    check(
        jwt.get(f"/api/v1/merchant/{mid}/settings"),
        "get",
        "/api/v1/merchant/{merchant_id}/settings",
        200,
    )
    check(
        jwt.patch(
            f"/api/v1/merchant/{mid}/settings",
            {"max_installments": 6, "release_rule": "on_completion"},
            format="json",
        ),
        "patch",
        "/api/v1/merchant/{merchant_id}/settings",
        200,
    )
    with_key = client(key)
    order = {
        "merchant_id": mid,
        "amount": 500_000,
        "currency": "NGN",
        "title": "Laptop",
        "order_reference": "order-1",
    }
    idempotency = {"HTTP_IDEMPOTENCY_KEY": "0b6f7c1e-8d3a-4b5e-9f21-6a7d2c4e8b90"}
    created = check(
        with_key.post("/api/v1/checkout/sessions", order, format="json", **idempotency),
        "post",
        "/api/v1/checkout/sessions",
        201,
    )
    replayed = with_key.post(
        "/api/v1/checkout/sessions", order, format="json", **idempotency
    )
    assert replayed["Idempotent-Replayed"] == "true"
    assert check(replayed, "post", "/api/v1/checkout/sessions", 201) == created
    check(
        client().get(f"/api/v1/checkout/sessions/{created['data']['session_token']}"),
        "get",
        "/api/v1/checkout/sessions/{token}",
        200,
    )
    preview = {
        "merchant_id": mid,
        "amount": 500_000,
        "schedule_type": "monthly",
        "installment_count": 3,
    }
    for token in (key, me.customer_jwt):
        check(
            client(token).post("/api/v1/checkout/preview", preview, format="json"),
            "post",
            "/api/v1/checkout/preview",
            200,
        )
    # A payday (DESIGN 15): a day of the month or the last working day.
    for preferred_day in (25, "last_working_day"):
        check(
            client(key).post(
                "/api/v1/checkout/preview",
                {**preview, "preferred_day": preferred_day},
                format="json",
            ),
            "post",
            "/api/v1/checkout/preview",
            200,
        )


def test_payment_methods_from_card_to_mandates(check, world, db):
    me = world.me
    cid = me.customer.public_id
    shopper = client(me.customer_jwt)
    check(
        shopper.get(f"/api/v1/payment-methods/customers/{cid}"),
        "get",
        "/api/v1/payment-methods/customers/{customer_id}",
        200,
    )
    check(
        shopper.get("/api/v1/payment-methods/banks"),
        "get",
        "/api/v1/payment-methods/banks",
        200,
    )
    started = check(
        shopper.post(
            "/api/v1/payment-methods/initialize-card",
            {"customer_id": cid, "callback_url": CALLBACK_URL},
            format="json",
        ),
        "post",
        "/api/v1/payment-methods/initialize-card",
        200,
    )
    redirect = submit_card_form(APIClient(), started["authorization_url"], CARD_OK)
    check(
        shopper.post(
            "/api/v1/payment-methods/verify-card",
            {"customer_id": cid, "reference": reference_from_redirect(redirect)},
            format="json",
        ),
        "post",
        "/api/v1/payment-methods/verify-card",
        200,
    )

    def step(name, reference, **fields):
        return check(
            shopper.post(
                f"/api/v1/payment-methods/bank-mandate/{name}",
                {"customer_id": cid, "reference": reference, **fields},
                format="json",
            ),
            "post",
            f"/api/v1/payment-methods/bank-mandate/{name}",
            200,
        )

    def initiate(account_number):
        return check(
            shopper.post(
                f"/api/v1/payment-methods/customers/{cid}/initiate-bank-mandate",
                {
                    "bank_code": "044",
                    "account_number": account_number,
                    "terms_accepted": True,
                },
                format="json",
            ),
            "post",
            "/api/v1/payment-methods/customers/{customer_id}/initiate-bank-mandate",
            200,
        )

    birthday = initiate("0123456781")
    assert birthday["next_action"] == "submit_birthday"
    otp = step("submit-birthday", birthday["reference"], birthday="1990-01-31")
    assert step("submit-otp", otp["reference"], otp="123456")["next_action"] == (
        "success"
    )
    phone = initiate("0123456782")
    step("submit-phone", phone["reference"], phone="+2348012345678")
    popup = initiate("0123456783")
    assert popup["next_action"] == "open_url" and popup["url"]
    # The customer authorizes in the sandbox popup, then the app verifies.
    path = "/" + popup["url"].split("://", 1)[-1].split("/", 1)[-1]
    APIClient().post(path, {})
    assert step("verify", popup["reference"])["next_action"] == "success"

    method_id = world.card.public_id
    check(
        shopper.put(f"/api/v1/payment-methods/{method_id}/default"),
        "put",
        "/api/v1/payment-methods/{method_id}/default",
        200,
    )
    check(
        shopper.delete(f"/api/v1/payment-methods/{method_id}"),
        "delete",
        "/api/v1/payment-methods/{method_id}",
        200,
    )


def test_webhook_endpoints_and_the_processor_callback(check, world, db):
    merchant = client(world.me.merchant_jwt)
    check(
        merchant.post(
            "/api/v1/webhooks/test",
            {"webhook_url": "https://hooks.shop.example/test"},
            format="json",
        ),
        "post",
        "/api/v1/webhooks/test",
        200,
    )
    check(
        merchant.post(f"/api/v1/webhooks/events/{world.event.public_id}/replay"),
        "post",
        "/api/v1/webhooks/events/{event_id}/replay",
        200,
    )
    listed = check(
        merchant.get("/api/v1/webhooks/failed-attempts"),
        "get",
        "/api/v1/webhooks/failed-attempts",
        200,
    )
    assert listed["total"] >= 1
    raw = b'{"event": "authorization.revoked", "data": {"authorization_code": "x"}}'
    check(
        client().post(
            "/api/v1/webhooks/payment-gateway",
            raw,
            content_type="application/json",
            HTTP_X_PAYSTACK_SIGNATURE=signature_for(raw),
        ),
        "post",
        "/api/v1/webhooks/payment-gateway",
        200,
    )


def test_events_list_and_one_event(check, world, db):
    merchant = client(world.me.api_key)
    listed = check(
        merchant.get("/api/v1/events", {"type": world.event.event_type}),
        "get",
        "/api/v1/events",
        200,
    )
    assert world.event.public_id in [item["eventId"] for item in listed["data"]]
    one = check(
        merchant.get(f"/api/v1/events/{world.event.public_id}"),
        "get",
        "/api/v1/events/{event_id}",
        200,
    )
    assert one["data"]["eventId"] == world.event.public_id
    check(
        merchant.get(f"/api/v1/events/{world.other_event.public_id}"),
        "get",
        "/api/v1/events/{event_id}",
        404,
    )


def test_checkout_completion_plans_and_payment_links(check, world, db):
    me = world.me
    mid = me.merchant.public_id
    shopper = client(me.customer_jwt)
    choice = {
        "schedule_type": "monthly",
        "installment_count": 3,
        "payment_method_id": world.card.public_id,
        "terms_accepted": True,
    }
    token = world.open_session()
    template = "/api/v1/checkout/sessions/{token}/complete"
    plan = check(
        shopper.post(f"/api/v1/checkout/sessions/{token}/complete", choice, "json"),
        "post",
        template,
        201,
    )["data"]
    assert plan["status"] == "active" and len(plan["installments"]) == 3
    on_payday = check(
        shopper.post(
            f"/api/v1/checkout/sessions/{world.open_session()}/complete",
            {**choice, "preferred_day": "last_working_day"},
            "json",
        ),
        "post",
        template,
        201,
    )["data"]
    assert on_payday["preferred_day"] == "last_working_day"
    again = check(
        shopper.post(f"/api/v1/checkout/sessions/{token}/complete", choice, "json"),
        "post",
        template,
        409,
    )
    assert again["error"]["code"] == "session_completed"
    declined = _customer_with_declining_card(world)
    refused = check(
        client(declined["jwt"]).post(
            f"/api/v1/checkout/sessions/{world.open_session()}/complete",
            {**choice, "payment_method_id": declined["method_id"]},
            "json",
        ),
        "post",
        template,
        402,
    )
    assert refused["error"]["code"] == "payment_failed"

    with_key = client(me.api_key)
    for token_of in (me.api_key, me.customer_jwt):
        check(
            client(token_of).get(f"/api/v1/payment-plans/{plan['id']}"),
            "get",
            "/api/v1/payment-plans/{plan_id}",
            200,
        )
        agreement = check(
            client(token_of).get(f"/api/v1/payment-plans/{plan['id']}/agreement"),
            "get",
            "/api/v1/payment-plans/{plan_id}/agreement",
            200,
        )
        assert agreement["data"]["key_facts"]["deposit"] == plan["deposit_amount"]
    listed = check(
        with_key.get(
            f"/api/v1/payment-plans?order_reference={plan['order_reference']}"
        ),
        "get",
        "/api/v1/payment-plans",
        200,
    )
    assert [item["id"] for item in listed["data"]] == [plan["id"]]
    due = check(
        with_key.get(
            f"/api/v1/installments?due_from={plan['installments'][0]['due_date']}"
        ),
        "get",
        "/api/v1/installments",
        200,
    )
    assert plan["installments"][0]["id"] in {item["id"] for item in due["data"]}

    link = check(
        with_key.post(
            "/api/v1/payment-links",
            {
                "merchant_id": mid,
                "title": "Office chair",
                "amount": 4_500_000,
                "currency": "NGN",
                "redirect_url": "https://shop.example/thanks",
            },
            "json",
        ),
        "post",
        "/api/v1/payment-links",
        201,
    )["data"]
    check(
        with_key.get(f"/api/v1/payment-links/merchant/{mid}"),
        "get",
        "/api/v1/payment-links/merchant/{merchant_id}",
        200,
    )
    toggled = check(
        with_key.patch(
            f"/api/v1/payment-links/{link['id']}/toggle", {"is_active": False}, "json"
        ),
        "patch",
        "/api/v1/payment-links/{link_id}/toggle",
        200,
    )
    assert toggled["data"]["isActive"] is False


def test_paying_early_one_installment_a_decline_and_the_payoff(check, world, db):
    shopper = client(world.me.customer_jwt)
    plan_id = world.plan.public_id
    url = f"/api/v1/payment-plans/{plan_id}/pay"
    template = "/api/v1/payment-plans/{plan_id}/pay"
    first = world.unpaid_installment_id()

    one = check(
        shopper.post(url, {"installment_id": first}, "json"), "post", template, 200
    )
    assert one["data"]["installments"][0]["status"] == "paid"
    again = check(
        shopper.post(url, {"installment_id": first}, "json"), "post", template, 409
    )
    assert again["error"]["code"] == "installment_not_payable"
    poor = add_card(sign_in(world.me.customer), CARD_POOR)["id"]
    declined = check(
        shopper.post(url, {"payoff": True, "payment_method_id": poor}, "json"),
        "post",
        template,
        402,
    )
    assert declined["error"]["code"] == "payment_failed"
    paid_off = check(
        shopper.post(
            url, {"payoff": True, "payment_method_id": world.card.public_id}, "json"
        ),
        "post",
        template,
        200,
    )["data"]
    assert (paid_off["status"], paid_off["amount_remaining"]) == ("completed", 0)
    check(shopper.post(url, {"payoff": True}, "json"), "post", template, 409)


def test_paying_by_transfer_and_ussd_and_the_sandbox_calls(check, world, db):
    shopper = client(world.me.customer_jwt)
    with_key = client(world.me.api_key)
    plan = active_plan(world.me.merchant, world.card)
    pay_url = f"/api/v1/payment-plans/{plan.public_id}/pay"
    pay_template = "/api/v1/payment-plans/{plan_id}/pay"
    read_template = "/api/v1/payment-plans/{plan_id}/payments/{payment_id}"
    first = plan.installments.order_by("sequence").first().public_id

    transfer = check(
        shopper.post(
            pay_url, {"installment_id": first, "channel": "bank_transfer"}, "json"
        ),
        "post",
        pay_template,
        202,
    )["data"]["payment"]
    assert transfer["status"] == "pending" and transfer["transfer"]
    read_url = f"/api/v1/payment-plans/{plan.public_id}/payments/{transfer['id']}"
    for api in (shopper, with_key):
        check(api.get(read_url), "get", read_template, 200)
    busy = check(
        shopper.post(
            pay_url, {"payoff": True, "channel": "ussd", "bank": "737"}, "json"
        ),
        "post",
        pay_template,
        409,
    )
    assert busy["error"]["code"] == "payment_in_progress"
    complete = "/api/v1/sandbox/payments/{payment_id}/complete"
    expire = "/api/v1/sandbox/payments/{payment_id}/expire"
    complete_url = f"/api/v1/sandbox/payments/{transfer['id']}/complete"
    wrong = check(
        with_key.post(complete_url, {"amount": 1}, "json"), "post", complete, 422
    )
    assert wrong["error"]["code"] == "amount_mismatch"
    paid = check(with_key.post(complete_url, {}, "json"), "post", complete, 200)
    assert paid["data"]["payment"]["status"] == "succeeded"
    again = check(with_key.post(complete_url, {}, "json"), "post", complete, 409)
    assert again["error"]["code"] == "payment_not_pending"

    ussd = check(
        shopper.post(
            pay_url, {"payoff": True, "channel": "ussd", "bank": "737"}, "json"
        ),
        "post",
        pay_template,
        202,
    )["data"]["payment"]
    assert ussd["ussd"]["code"].startswith("*737*")
    expire_url = f"/api/v1/sandbox/payments/{ussd['id']}/expire"
    ended = check(with_key.post(expire_url), "post", expire, 200)
    assert ended["data"]["payment"]["status"] == "expired"
    late = check(with_key.post(expire_url), "post", expire, 409)
    assert late["error"]["code"] == "payment_expired"


def _customer_with_declining_card(world) -> dict:
    """Another shopper whose saved card authorizes but whose charges fail."""
    customer = CustomerFactory()
    method = add_card(sign_in(customer), CARD_POOR)
    return {"jwt": customer_jwt(customer), "method_id": method["id"]}


def test_wallet_payout_account_and_processor_events(check, world, db):
    me = world.me
    mid = me.merchant.public_id
    for token in (me.api_key, me.merchant_jwt):
        wallet = check(
            client(token).get(f"/api/v1/merchant/{mid}/wallet"),
            "get",
            "/api/v1/merchant/{merchant_id}/wallet",
            200,
        )
        # The world's two plans paid their deposits (a collection each, less
        # the fee), the second's is disputed (held), and a payout took the rest.
        assert wallet["total"] == 4
        assert [t["type"] for t in wallet["data"]["transactions"]] == [
            "payout",
            "dispute_held",
            "collection",
            "collection",
        ]
        payouts = check(
            client(token).get(f"/api/v1/merchant/{mid}/payouts"),
            "get",
            "/api/v1/merchant/{merchant_id}/payouts",
            200,
        )
        assert [p["id"] for p in payouts["data"]] == [world.payout.public_id]
        report = check(
            client(token).get(
                f"/api/v1/merchant/{mid}/payouts/{world.payout.public_id}/settlement"
            ),
            "get",
            "/api/v1/merchant/{merchant_id}/payouts/{payout_id}/settlement",
            200,
        )
        assert report["data"]["lines"][0]["order_reference"] == (
            world.plan.order_reference
        )
        assert sum(line["net"] for line in report["data"]["lines"]) == (
            world.payout.amount
        )
    check(
        client(me.merchant_jwt).put(
            f"/api/v1/merchant/{mid}/payout-account",
            {"bank_code": "058", "account_number": "0123456789"},
            "json",
        ),
        "put",
        "/api/v1/merchant/{merchant_id}/payout-account",
        200,
    )
    raw = b'{"event": "charge.success", "data": {"reference": "nothing-here"}}'
    check(
        client().post(
            "/api/v1/webhooks/paystack",
            raw,
            content_type="application/json",
            HTTP_X_PAYSTACK_SIGNATURE=signature_for(raw),
        ),
        "post",
        "/api/v1/webhooks/paystack",
        200,
    )
    unsigned = client().post(
        "/api/v1/webhooks/paystack", raw, content_type="application/json"
    )
    check(unsigned, "post", "/api/v1/webhooks/paystack", 401)


def test_plan_refunds_and_cancellation(check, world, db):
    plan = world.plan
    with_key = client(world.me.api_key)
    refunds = f"/api/v1/payment-plans/{plan.public_id}/refunds"
    template = "/api/v1/payment-plans/{plan_id}/refunds"
    key = {"HTTP_IDEMPOTENCY_KEY": "5d0c7e2a-1b3f-4c8d-9e6a-2f4b8c1d7e30"}
    reduced = check(
        with_key.post(refunds, {"amount": 1_000, "reason": "Scratched"}, "json", **key),
        "post",
        template,
        201,
    )["data"]
    assert (reduced["amount_reduced"], reduced["status"]) == (1_000, "processed")
    replayed = check(
        with_key.post(refunds, {"amount": 9, "reason": "Other"}, "json", **key),
        "post",
        template,
        201,
    )["data"]
    assert replayed == reduced
    too_much = check(
        with_key.post(refunds, {"amount": 10**9, "reason": "All"}, "json"),
        "post",
        template,
        422,
    )
    assert too_much["error"]["code"] == "refund_exceeds_refundable"
    check(with_key.get(refunds), "get", template, 200)

    cancel = f"/api/v1/payment-plans/{plan.public_id}/cancel"
    cancelled = check(
        with_key.post(cancel, {"reason": "Order cancelled"}, "json"),
        "post",
        "/api/v1/payment-plans/{plan_id}/cancel",
        200,
    )["data"]
    assert cancelled["status"] == "cancelled"
    assert cancelled["refunds"] == [reduced]
    again = check(
        with_key.post(cancel, {"reason": "Twice"}, "json"),
        "post",
        "/api/v1/payment-plans/{plan_id}/cancel",
        409,
    )
    assert again["error"]["code"] == "plan_not_cancellable"
    money = check(
        with_key.post(refunds, {"amount": 2_000, "reason": "Returned"}, "json"),
        "post",
        template,
        201,
    )["data"]
    assert money["amount_returned"] == 2_000 and len(money["parts"]) == 1
    wallet = check(
        with_key.get(f"/api/v1/merchant/{world.me.merchant.public_id}/wallet"),
        "get",
        "/api/v1/merchant/{merchant_id}/wallet",
        200,
    )["data"]
    [refunded] = [row for row in wallet["transactions"] if row["type"] == "refund"]
    assert (refunded["amount"], refunded["resource_id"]) == (-2_000, money["id"])
    assert refunded["net"] == refunded["amount"] - refunded["fee"]


def test_pay_links(check, world, db):
    plan = world.plan
    url = f"/api/v1/payment-plans/{plan.public_id}/pay-links"
    template = "/api/v1/payment-plans/{plan_id}/pay-links"
    made = check(client(world.me.api_key).post(url), "post", template, 201)["data"]
    assert "/pay/" in made["url"]
    paid_off = check(
        client(world.me.customer_jwt).post(
            f"/api/v1/payment-plans/{plan.public_id}/pay", {"payoff": True}, "json"
        ),
        "post",
        "/api/v1/payment-plans/{plan_id}/pay",
        200,
    )
    assert paid_off["data"]["status"] == "completed"
    nothing = check(client(world.me.api_key).post(url), "post", template, 409)
    assert nothing["error"]["code"] == "plan_not_collectable"


def test_the_sandbox_clock(check, world, db):
    plan = world.plan
    with_key = client(world.me.api_key)
    url = f"/api/v1/sandbox/payment-plans/{plan.public_id}/advance"
    template = "/api/v1/sandbox/payment-plans/{plan_id}/advance"
    last = max(plan.installments.values_list("due_date", flat=True))
    advanced = check(
        with_key.post(url, {"to": last.isoformat()}, "json"), "post", template, 200
    )
    assert advanced["data"]["status"] == "completed"
    assert sum(day["paid"] for day in advanced["advance"]["days"]) == len(
        advanced["data"]["installments"]
    )
    too_far = check(
        with_key.post(url, {"to": "2999-01-01"}, "json"), "post", template, 422
    )
    assert too_far["error"]["code"] == "advance_date_out_of_range"


def test_the_sandbox_deciding_a_dispute(check, world, db):
    with_key = client(world.me.api_key)
    url = f"/api/v1/sandbox/disputes/{world.dispute.public_id}/resolve"
    template = "/api/v1/sandbox/disputes/{dispute_id}/resolve"
    won = check(with_key.post(url, {"outcome": "won"}, "json"), "post", template, 200)
    assert won["data"]["status"] == "won"
    again = check(
        with_key.post(url, {"outcome": "lost"}, "json"), "post", template, 409
    )
    assert again["error"]["code"] == "dispute_not_open"


def test_rescheduling_by_the_customer_and_the_merchant(check, world, db):
    template = (
        "/api/v1/payment-plans/{plan_id}/installments/{installment_id}/reschedule"
    )
    plan_id, installment_id, due_date = world.fresh_reschedule()
    url = f"/api/v1/payment-plans/{plan_id}/installments/{installment_id}/reschedule"
    shopper = client(world.me.customer_jwt)
    moved = check(
        shopper.post(url, {"due_date": due_date}, "json"), "post", template, 200
    )
    assert moved["data"]["reschedules"][0]["due_date"] == due_date
    assert moved["data"]["customer_reschedules_left"] == 0
    refused = check(
        shopper.post(url, {"due_date": due_date}, "json"), "post", template, 422
    )
    assert refused["error"]["code"] == "reschedule_not_allowed"
    with_key = client(world.me.api_key)
    later = moved["data"]["installments"][1]["due_date"]
    by_merchant = check(
        with_key.post(url, {"due_date": later}, "json"), "post", template, 422
    )
    assert "next installment" in by_merchant["error"]["message"]
    collected = client(world.me.api_key).post(
        f"/api/v1/sandbox/payment-plans/{plan_id}/collect-next"
    )
    assert collected.status_code == 200
    paid = check(with_key.post(url, {"due_date": later}, "json"), "post", template, 422)
    assert "is paid" in paid["error"]["message"]


def test_disputes_their_answer_acceptance_and_resuming_a_plan(check, world, db):
    from ..installments.disputes import deposit_reference, dispute_open

    with_key = client(world.me.api_key)
    with_jwt = client(world.me.merchant_jwt)
    dispute = world.dispute
    listed = check(with_jwt.get("/api/v1/disputes"), "get", "/api/v1/disputes", 200)
    assert [item["id"] for item in listed["data"]] == [dispute.public_id]
    one = "/api/v1/disputes/{dispute_id}"
    url = f"/api/v1/disputes/{dispute.public_id}"
    assert check(with_key.get(url), "get", one, 200)["data"]["evidence"] is None

    evidence = "/api/v1/disputes/{dispute_id}/evidence"
    refused = check(
        with_key.post(
            f"{url}/evidence",
            {"service_details": "Delivered.", "files": [_upload(b"GIF89a")]},
            format="multipart",
        ),
        "post",
        evidence,
        422,
    )
    assert refused["error"]["code"] == "evidence_file_invalid"
    answered = check(
        with_key.post(
            f"{url}/evidence",
            {"service_details": "Delivered.", "files": [_upload(b"%PDF-1.4\n")]},
            format="multipart",
        ),
        "post",
        evidence,
        200,
    )["data"]
    assert answered["status"] == "under_review"
    assert len(answered["evidence"]["files"]) == 3
    again = check(
        with_jwt.post(f"{url}/evidence", {"service_details": "Again."}, "json"),
        "post",
        evidence,
        409,
    )
    assert again["error"]["code"] == "dispute_not_open"

    plan = world.plan
    resume = "/api/v1/payment-plans/{plan_id}/resume"
    resume_url = f"/api/v1/payment-plans/{plan.public_id}/resume"
    early = check(with_key.post(resume_url), "post", resume, 409)
    assert early["error"]["code"] == "plan_not_resumable"
    second = dispute_open(deposit_reference(plan))
    accept = "/api/v1/disputes/{dispute_id}/accept"
    accepted = check(
        with_jwt.post(
            f"/api/v1/disputes/{second.public_id}/accept",
            {"message": "Refunded."},
            "json",
        ),
        "post",
        accept,
        200,
    )["data"]
    assert accepted["status"] == "accepted"
    check(
        with_key.post(f"/api/v1/disputes/{second.public_id}/accept", {}, "json"),
        "post",
        accept,
        409,
    )
    resumed = check(with_key.post(resume_url), "post", resume, 200)["data"]
    assert resumed["status"] == "active"


def _upload(content: bytes):
    from django.core.files.uploadedfile import SimpleUploadedFile

    return SimpleUploadedFile("evidence.bin", content)


def test_the_audit_log(check, world, db):
    # The world's merchant got its key when it was made: one entry.
    listed = check(
        client(world.me.api_key).get(
            "/api/v1/audit-log", {"action": "api_key.created", "since": "2020-01-01"}
        ),
        "get",
        "/api/v1/audit-log",
        200,
    )
    assert [entry["action"] for entry in listed["data"]] == ["api_key.created"]
    check(
        client(world.me.api_key).get("/api/v1/audit-log", {"since": "yesterday"}),
        "get",
        "/api/v1/audit-log",
        400,
    )
