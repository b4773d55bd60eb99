"""While PostgreSQL refuses connections the service answers 503 with Retry-After
(the soft error shape under /api/, a plain page elsewhere) so that load balancers
and clients back off, and it logs the outage once, not a traceback per request."""

import logging

import pytest

from merchants.models import API_KEY_PREFIX

pytestmark = pytest.mark.django_db

LOGIN = "/api/v1/auth/merchant/login"
KEY_HISTORY = "/api/v1/merchant/mer_0000000000000000/api-key/history"
CREDENTIALS = {"email": "a@shop.example.com", "password": "x" * 12}
# Well-formed, so that looking it up needs the database.
API_KEY = {"HTTP_AUTHORIZATION": f"Bearer {API_KEY_PREFIX}{'0' * 40}"}


def warnings_and_errors(caplog) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.levelno >= logging.WARNING]


@pytest.mark.parametrize(
    ("method", "path", "body", "headers"),
    [
        ("post", LOGIN, CREDENTIALS, {}),
        ("get", KEY_HISTORY, None, API_KEY),
    ],
    ids=["public", "api key"],
)
def test_an_api_request_gets_503_with_retry_after_and_the_soft_shape(
    api, database_refusing, method, path, body, headers
):
    response = getattr(api, method)(path, body, format="json", **headers)

    assert response.status_code == 503
    assert int(response["Retry-After"]) > 0
    assert response["Content-Type"] == "application/json"
    body = response.json()
    assert body == {
        "ok": False,
        "error": {"code": "service_unavailable", "message": body["error"]["message"]},
    }
    assert "Retry-After" in body["error"]["message"]
    assert response["X-Request-Id"]


def test_a_request_that_needs_no_database_is_answered_as_usual(api, database_refusing):
    response = api.get("/api/v1/nowhere")

    assert response.status_code == 404
    assert "Retry-After" not in response


def test_a_dashboard_page_gets_a_plain_503_page(client, database_refusing):
    client.cookies["sessionid"] = "a" * 32  # a signed-in browser: read from the db

    response = client.get("/dashboard/")

    assert response.status_code == 503
    assert int(response["Retry-After"]) > 0
    assert response["Content-Type"].startswith("text/html")
    assert b"temporarily unavailable" in response.content
    assert b"Traceback" not in response.content


def test_an_outage_is_logged_once_not_per_request(
    api, client, database_refusing, caplog
):
    caplog.set_level(logging.INFO)
    client.cookies["sessionid"] = "a" * 32
    statuses = []
    for _ in range(3):
        statuses += [
            api.post(LOGIN, CREDENTIALS, format="json"),
            api.get(KEY_HISTORY, **API_KEY),
            client.get("/dashboard/"),
        ]

    assert {response.status_code for response in statuses} == {503}
    records = warnings_and_errors(caplog)
    assert [(r.name, r.levelname) for r in records] == [("config.api", "ERROR")]
    assert "Connection refused" in records[0].getMessage()
    assert not [r for r in caplog.records if r.exc_info]


def test_an_outage_after_the_database_came_back_is_logged_again(
    api, database_refusing, caplog
):
    caplog.set_level(logging.INFO)

    first = api.get(KEY_HISTORY, **API_KEY)
    database_refusing.end()
    back = api.get(KEY_HISTORY, **API_KEY)
    database_refusing.start()
    again = api.get(KEY_HISTORY, **API_KEY)

    assert [first.status_code, back.status_code, again.status_code] == [503, 401, 503]
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert [r.name for r in errors] == ["config.api", "config.api"]
    assert [r for r in caplog.records if "reachable again" in r.getMessage()], (
        "the end of the outage is logged"
    )
