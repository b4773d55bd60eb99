"""Per-merchant rate limits and their headers (DESIGN section 4)."""

from datetime import timedelta
from itertools import cycle

import pytest
import requests
import time_machine
from django.utils import timezone

from ..conftest import bearer, make_merchant_with_key, merchant_jwt
from ..servers import web_processes


def history_url(merchant):
    return f"/api/v1/merchant/{merchant.public_id}/api-key/history"


@pytest.fixture
def minute_start():
    return timezone.now().replace(second=0, microsecond=0) + timedelta(minutes=1)


@pytest.mark.django_db
def test_101st_request_in_a_minute_on_sandbox_is_429(
    api, merchant_with_key, minute_start
):
    url = history_url(merchant_with_key.merchant)
    with time_machine.travel(minute_start + timedelta(seconds=20), tick=False):
        responses = [api.get(url, **merchant_with_key.headers) for _ in range(101)]

    assert [r.status_code for r in responses[:100]] == [200] * 100
    assert responses[0]["X-RateLimit-Limit"] == "100"
    assert responses[0]["X-RateLimit-Remaining"] == "99"
    assert responses[99]["X-RateLimit-Remaining"] == "0"
    assert int(responses[0]["X-RateLimit-Reset"]) == int(
        (minute_start + timedelta(minutes=1)).timestamp()
    )
    over = responses[100]
    assert over.status_code == 429
    assert over.json()["error"]["code"] == "rate_limited"
    assert over["Retry-After"] == "40"
    assert over["X-RateLimit-Remaining"] == "0"


@pytest.mark.django_db
def test_next_calendar_minute_has_a_fresh_budget(api, merchant_with_key, minute_start):
    url = history_url(merchant_with_key.merchant)
    with time_machine.travel(minute_start + timedelta(seconds=59), tick=False):
        for _ in range(100):
            api.get(url, **merchant_with_key.headers)
        assert api.get(url, **merchant_with_key.headers).status_code == 429
    with time_machine.travel(minute_start + timedelta(seconds=60), tick=False):
        assert api.get(url, **merchant_with_key.headers).status_code == 200


@pytest.mark.django_db
def test_production_plan_allows_500(api, minute_start):
    merchant = make_merchant_with_key(rate_plan="production")
    url = history_url(merchant.merchant)
    with time_machine.travel(minute_start, tick=False):
        codes = [api.get(url, **merchant.headers).status_code for _ in range(501)]
    assert codes.count(200) == 500
    assert codes[-1] == 429


@pytest.mark.django_db
def test_merchant_jwt_and_api_key_share_one_budget(
    api, merchant_with_key, minute_start
):
    merchant = merchant_with_key.merchant
    url = history_url(merchant)
    jwt = bearer(merchant_jwt(merchant))
    with time_machine.travel(minute_start, tick=False):
        for headers in [merchant_with_key.headers, jwt] * 50:
            assert api.get(url, **headers).status_code == 200
        assert api.get(url, **jwt).status_code == 429
        assert api.get(url, **merchant_with_key.headers).status_code == 429


@pytest.mark.django_db
def test_merchants_have_separate_budgets(
    api, merchant_with_key, other_merchant_with_key, minute_start
):
    with time_machine.travel(minute_start, tick=False):
        for _ in range(101):
            api.get(
                history_url(merchant_with_key.merchant), **merchant_with_key.headers
            )
        other = api.get(
            history_url(other_merchant_with_key.merchant),
            **other_merchant_with_key.headers,
        )
    assert other.status_code == 200
    assert other["X-RateLimit-Remaining"] == "99"


@pytest.mark.django_db(transaction=True)
def test_two_server_processes_share_one_budget():
    """Alternate requests between two gunicorn processes: the 101st is refused.

    The window is a calendar minute of the servers' real clock, which the test cannot
    move; if a minute boundary falls inside the burst (every response names its
    window in X-RateLimit-Reset) the burst is discarded and played again.
    """
    merchant = make_merchant_with_key()
    path = history_url(merchant.merchant)
    with web_processes(2) as urls, requests.Session() as session:
        for _attempt in range(3):
            servers = cycle(urls)
            replies = [
                session.get(
                    next(servers) + path,
                    headers={"Authorization": f"Bearer {merchant.api_key}"},
                    timeout=60,
                )
                for _ in range(101)
            ]
            if len({r.headers["X-RateLimit-Reset"] for r in replies}) == 1:
                break
            merchant = make_merchant_with_key()
            path = history_url(merchant.merchant)
        else:
            pytest.fail("three bursts in a row crossed a minute boundary")

    assert [r.status_code for r in replies[:100]] == [200] * 100
    assert replies[100].status_code == 429
    assert int(replies[100].headers["Retry-After"]) >= 1
    assert replies[100].json()["error"]["code"] == "rate_limited"
