"""The OpenAPI schema at /api/v1/schema/ and the two documentation pages."""

import json
import re

import pytest
from django.contrib.staticfiles import finders
from django.core.management import call_command
from openapi_spec_validator import validate

from config.api.schema import SCHEME_OF_KIND, accepted_kinds

from .routes import api_views

HTTP_METHODS = ("get", "post", "put", "patch", "delete")


@pytest.fixture(scope="module")
def schema(django_db_blocker):
    from rest_framework.test import APIClient

    with django_db_blocker.unblock():
        response = APIClient().get("/api/v1/schema/")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/vnd.oai.openapi+json")
    return json.loads(response.content)


def test_schema_endpoint_serves_a_valid_openapi_3_document(schema):
    validate(schema)
    assert schema["openapi"].startswith("3.0")


def test_schema_endpoint_also_speaks_yaml(api):
    response = api.get("/api/v1/schema/?format=yaml")
    assert response.status_code == 200
    assert b"openapi: 3.0" in response.content


def test_schema_endpoint_answers_plain_json_to_code_generators(api, schema):
    # Was 406: code generators send exactly `Accept: application/json`.
    response = api.get("/api/v1/schema/", HTTP_ACCEPT="application/json")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/json")
    assert json.loads(response.content) == schema


@pytest.mark.parametrize(
    ("query", "accept", "content_type", "start"),
    [
        ("?format=json", "", "application/vnd.oai.openapi+json", b"{"),
        ("", "*/*", "application/vnd.oai.openapi+json", b"{"),
        (
            "",
            "application/vnd.oai.openapi+json",
            "application/vnd.oai.openapi+json",
            b"{",
        ),
        ("", "application/vnd.oai.openapi", "application/vnd.oai.openapi", b"openapi:"),
        ("", "application/yaml", "application/yaml", b"openapi:"),
    ],
)
def test_schema_endpoint_serves_each_openapi_media_type(
    api, query, accept, content_type, start
):
    headers = {"HTTP_ACCEPT": accept} if accept else {}
    response = api.get(f"/api/v1/schema/{query}", **headers)
    assert response.status_code == 200
    assert response["Content-Type"].startswith(content_type)
    assert response.content.startswith(start)


def test_schema_generation_has_no_warnings(tmp_path):
    # --fail-on-warn: an endpoint without a description in its app's schema.py
    # (an APIView drf-spectacular cannot guess) fails here.
    call_command(
        "spectacular",
        "--validate",
        "--fail-on-warn",
        "--file",
        str(tmp_path / "schema.yaml"),
    )


def test_every_api_route_and_method_is_in_the_schema(schema):
    expected = {
        (path, method)
        for path, view in api_views().items()
        if path != "/api/v1/schema"
        for method in HTTP_METHODS
        if hasattr(view, method)
    }
    documented = {
        (path, method)
        for path, item in schema["paths"].items()
        for method in item
        if method in HTTP_METHODS
    }
    assert documented == expected


def test_each_operation_declares_the_credentials_its_view_accepts(schema):
    views = api_views()
    for path, item in schema["paths"].items():
        for method, operation in item.items():
            kinds = accepted_kinds(views[path])
            security = operation.get("security", [])
            if kinds:
                assert security == [{SCHEME_OF_KIND[kind]: []} for kind in kinds]
            elif security:
                assert security == [{"ProcessorSignature": []}], (path, method)
            if security:
                assert "401" in operation["responses"], (path, method)


def test_security_schemes_cover_keys_both_jwts_and_the_processor_signature(schema):
    schemes = schema["components"]["securitySchemes"]
    assert schemes["ApiKey"]["scheme"] == "bearer"
    assert schemes["MerchantJWT"]["bearerFormat"] == "JWT"
    assert schemes["CustomerJWT"]["bearerFormat"] == "JWT"
    assert schemes["ProcessorSignature"] == {
        **schemes["ProcessorSignature"],
        "type": "apiKey",
        "in": "header",
        "name": "X-Paystack-Signature",
    }


def test_every_error_response_allows_both_error_shapes(schema):
    error = schema["components"]["schemas"]["Error"]
    assert error["oneOf"] == [
        {"$ref": "#/components/schemas/ExceptionError"},
        {"$ref": "#/components/schemas/SoftError"},
    ]
    for path, item in schema["paths"].items():
        for method, operation in item.items():
            for status, response in operation["responses"].items():
                if int(status) >= 400:
                    body = response["content"]["application/json"]["schema"]
                    assert body == {"$ref": "#/components/schemas/Error"}, (
                        path,
                        method,
                        status,
                    )


def test_strict_request_bodies_refuse_unknown_fields(schema):
    components = schema["components"]["schemas"]
    for path, item in schema["paths"].items():
        for method, operation in item.items():
            body = operation.get("requestBody")
            if not body or operation.get("security") == [{"ProcessorSignature": []}]:
                continue
            ref = body["content"]["application/json"]["schema"]["$ref"]
            component = components[ref.rsplit("/", 1)[1]]
            assert component["additionalProperties"] is False, (path, method)


def test_camel_case_envelopes_are_documented_as_the_spec_names_them(schema):
    components = schema["components"]["schemas"]
    assert set(components["Merchant"]["properties"]) == {
        "merchantId",
        # DESIGN section 21: the side of the data (docs/test-mode.md).
        "livemode",
        "status",
        "email",
    }
    rotate = schema["paths"]["/api/v1/merchant/{merchant_id}/rotate-api-key"]["post"]
    created = rotate["responses"]["201"]["content"]["application/json"]["schema"]
    # DESIGN section 21: the key's mode, and its side.
    assert created["properties"]["data"]["required"] == ["apiKey", "mode", "livemode"]


@pytest.mark.parametrize("path", ["/api/docs/", "/api/redoc/"])
def test_docs_pages_load_only_the_services_own_assets(api, path):
    response = api.get(path)
    assert response.status_code == 200
    html = response.content.decode()
    sources = re.findall(r'(?:src|href)="([^"]+)"', html)
    assert sources
    assert all(source.startswith("/") for source in sources), sources
    assert "<script>" not in html and "<style>" not in html
    assert "script-src 'self'" in response["Content-Security-Policy"]
    for source in sources:
        if source.startswith("/static/"):
            assert finders.find(source.removeprefix("/static/")), source


def test_swagger_ui_start_script_is_served_as_javascript(api):
    response = api.get("/api/docs/?script=")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/javascript")
    assert b"/api/v1/schema/" in response.content


def test_the_outbound_event_envelope_is_documented_in_camel_case(schema):
    envelope = schema["components"]["schemas"]["WebhookEventEnvelope"]
    assert envelope["required"] == [
        "eventId",
        "eventType",
        "merchantId",
        # DESIGN section 21: the side of the data (docs/test-mode.md).
        "livemode",
        "createdAt",
        "data",
    ]


def test_payment_links_are_documented_in_camel_case(schema):
    link = schema["components"]["schemas"]["PaymentLink"]
    assert link["required"] == [
        "id",
        # DESIGN section 21: the side of the data (docs/test-mode.md).
        "livemode",
        "slug",
        "publicUrl",
        "merchantId",
        "title",
        "description",
        "amount",
        "redirectUrl",
        "isActive",
        "createdAt",
        "updatedAt",
    ]
    assert link["properties"]["amount"]["required"] == ["amount", "currency"]


def test_plan_and_wallet_are_documented_as_the_design_names_them(schema):
    components = schema["components"]["schemas"]
    assert components["PaymentPlan"]["required"] == [
        "id",
        "status",
        # DESIGN section 21: the side of the data (docs/test-mode.md).
        "livemode",
        "merchant_id",
        "customer_id",
        "order_reference",
        "currency",
        "total_amount",
        "deposit_amount",
        "amount_paid",
        "amount_remaining",
        # DESIGN section 14.
        "amount_refunded",
        # Issue 25: of it, refund money still on its way.
        "amount_refund_pending",
        "schedule_type",
        "installment_count",
        # DESIGN section 15.
        "preferred_day",
        # DESIGN section 17: manual collection.
        "collection",
        "installments",
        "refunds",
        # DESIGN section 15, rescheduling: the schedule's history.
        "reschedules",
        "customer_reschedules_left",
        "created_at",
    ]
    assert components["Installment"]["required"] == [
        "id",
        # DESIGN section 21: the side of the data (docs/test-mode.md).
        "livemode",
        "sequence",
        "amount",
        "original_amount",
        # DESIGN section 15: partial collection.
        "amount_paid",
        "due_date",
        "status",
        "attempts",
        "paid_at",
    ]
    assert components["Refund"]["required"] == [
        "id",
        # DESIGN section 21: the side of the data (docs/test-mode.md).
        "livemode",
        "payment_plan_id",
        "amount",
        # Issue 25: what was asked, what of the money is on its way, what failed.
        "amount_requested",
        "amount_reduced",
        "amount_returned",
        "amount_pending",
        "amount_failed",
        "reason",
        "status",
        "parts",
        "created_at",
    ]
    assert components["RefundPart"]["required"] == [
        "reference",
        "collection_reference",
        "amount",
        "status",
    ]
    assert components["Wallet"]["required"] == [
        "merchant_id",
        # DESIGN section 21: the side of the data (docs/test-mode.md).
        "livemode",
        "currency",
        "available_balance",
        "pending_payout",
        "total_paid_out",
        "transactions",
    ]
    assert components["WalletTransaction"]["required"] == [
        "id",
        # DESIGN section 21: the side of the data (docs/test-mode.md).
        "livemode",
        "type",
        "amount",
        "fee",
        "net",
        "reference",
        # Beside the design's fields (issue 14): what the line was for.
        "resource_type",
        "resource_id",
        "description",
        "created_at",
    ]
    wallet = schema["paths"]["/api/v1/merchant/{merchant_id}/wallet"]["get"]
    answer = wallet["responses"]["200"]["content"]["application/json"]["schema"]
    assert answer["required"] == ["ok", "data", "total"]


def test_completion_documents_its_soft_errors(schema):
    completion = schema["paths"]["/api/v1/checkout/sessions/{token}/complete"]["post"]
    assert {"201", "402", "404", "409", "422"} <= set(completion["responses"])
    assert completion["security"] == [{"CustomerJWT": []}]


def test_a_body_that_must_name_one_of_its_optional_fields_is_required(schema):
    # Paying early: `installment_id` or `payoff: true`, each optional alone.
    operation = schema["paths"]["/api/v1/payment-plans/{plan_id}/pay"]["post"]
    body = schema["components"]["schemas"]["PayEarlyInput"]

    assert operation["requestBody"]["required"] is True
    assert "required" not in body
    assert [branch["required"] for branch in body["oneOf"]] == [
        ["installment_id"],
        ["payoff"],
    ]
    assert {"402", "409", "422"} <= set(operation["responses"])
