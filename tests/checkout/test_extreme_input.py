"""Hostile bodies get a 4xx, never a 500."""

import json

import pytest

from .conftest import PREVIEW_URL, SESSIONS_URL, session_body

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("url", [SESSIONS_URL, PREVIEW_URL])
@pytest.mark.parametrize(
    "raw",
    [
        pytest.param(b'{"amount": 1' + b"0" * 5000 + b"}", id="5000-digit int"),
        pytest.param(b'{"amount": NaN}', id="NaN"),
        pytest.param(b'{"amount": Infinity}', id="Infinity"),
        pytest.param(b"[" * 5000 + b"]" * 5000, id="deep nesting"),
        pytest.param(b'{"title": "\\ud800"}', id="lone surrogate"),
        pytest.param(b"\xff\xfe{}", id="bad utf-8"),
    ],
)
def test_hostile_json_is_a_4xx(api, merchant_with_key, url, raw):
    response = api.generic(
        "POST", url, raw, content_type="application/json", **merchant_with_key.headers
    )

    assert 400 <= response.status_code < 500


@pytest.mark.parametrize("field", ["title", "order_reference"])
def test_lone_surrogate_in_an_otherwise_valid_session_is_400(
    api, merchant_with_key, field
):
    valid = session_body(merchant_with_key.merchant)
    # The escape \ud800 in the JSON text decodes to a lone surrogate.
    body = json.dumps(valid).replace(f'"{field}": "', f'"{field}": "\\ud800')

    response = api.generic(
        "POST",
        SESSIONS_URL,
        body.encode(),
        content_type="application/json",
        **merchant_with_key.headers,
    )

    assert response.status_code == 400
    assert field in response.json()["errors"]
