"""Shared API plumbing: envelopes, error shapes, request ids, body limits, slashes."""

import json
import logging

import pytest

from merchants import services as merchant_services

pytestmark = pytest.mark.django_db

REGISTER = "/api/v1/auth/merchant/register"


def test_request_id_is_generated_when_absent(api):
    response = api.post(REGISTER, {}, format="json")
    assert len(response["X-Request-Id"]) == 32


def test_request_id_is_echoed_when_given(api):
    response = api.post(REGISTER, {}, format="json", HTTP_X_REQUEST_ID="req-abc-123")
    assert response["X-Request-Id"] == "req-abc-123"


def test_unsafe_request_id_is_replaced(api):
    response = api.post(
        REGISTER, {}, format="json", HTTP_X_REQUEST_ID="evil\nlog line" + "x" * 200
    )
    assert response["X-Request-Id"] != "evil\nlog line"
    assert "\n" not in response["X-Request-Id"]


@pytest.mark.parametrize(
    "raw",
    [b"{not json", b"", b"[1, 2, 3]", b'"a string"', b"null", b"\xff\xfe"],
)
def test_malformed_or_non_object_json_is_400_with_detail(api, raw):
    response = api.post(REGISTER, raw, content_type="application/json")

    assert response.status_code == 400
    assert isinstance(response.json()["detail"], str)
    assert response.json()["detail"]


def test_wrong_content_type_is_415(api):
    response = api.post(REGISTER, "email=a", content_type="text/plain")
    assert response.status_code == 415
    assert response.json()["detail"]


def test_body_over_one_mebibyte_is_413(api):
    body = json.dumps({"email": "a@b.ng", "pad": "x" * (1024 * 1024)})
    response = api.post(REGISTER, body, content_type="application/json")

    assert response.status_code == 413
    assert "1 MiB" in response.json()["detail"]


def test_unknown_fields_with_odd_types_are_400_not_500(api):
    response = api.post(
        REGISTER,
        {
            "email": "a@b.ng",
            "password": "Sturdy-Passw0rd-42",
            "business_name": "Shop",
            "business_url": "https://shop.ng",
            "extra": {"deep": [1, {"x": None}]},
        },
        format="json",
    )
    assert response.status_code == 400
    assert response.json()["errors"] == {"extra": ["Unknown field."]}


def test_trailing_slash_is_served_not_redirected(api):
    response = api.post(REGISTER + "/", {}, format="json")
    assert response.status_code == 400


def test_unknown_api_path_is_json_404(api):
    response = api.get("/api/v1/no/such/thing")
    assert response.status_code == 404
    assert response.json()["detail"]


def test_method_not_allowed_is_405_with_detail(api):
    response = api.get(REGISTER)
    assert response.status_code == 405
    assert response.json()["detail"]


def test_unexpected_error_is_500_without_stack_trace(api, monkeypatch, caplog):
    def explode(**kwargs):
        raise RuntimeError("secret internals")

    monkeypatch.setattr(merchant_services, "merchant_register", explode)
    with caplog.at_level(logging.ERROR):
        response = api.post(
            REGISTER,
            {
                "email": "a@b.ng",
                "password": "Sturdy-Passw0rd-42",
                "business_name": "Shop",
                "business_url": "https://shop.ng",
            },
            format="json",
            HTTP_X_REQUEST_ID="trace-me-1",
        )

    assert response.status_code == 500
    text = response.content.decode()
    assert "secret internals" not in text
    assert "Traceback" not in text
    assert "trace-me-1" in response.json()["detail"]
    assert any(
        "secret internals" in r.getMessage() or r.exc_info for r in caplog.records
    )


def test_deeply_nested_json_is_400_not_500(api):
    body = "[" * 100_000 + "]" * 100_000
    response = api.post(REGISTER, body, content_type="application/json")

    assert response.status_code == 400
    assert "nested too deeply" in response.json()["detail"]


@pytest.mark.parametrize("merchant_id", ["mer_%00", "mer_\u0000x", "%00", "mer_a b"])
def test_odd_bytes_in_a_path_id_are_404_not_500(api, merchant_with_key, merchant_id):
    response = api.get(
        f"/api/v1/merchant/{merchant_id}/api-key/history", **merchant_with_key.headers
    )
    assert response.status_code == 404
