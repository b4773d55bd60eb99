"""Rate limits with REDIS_URL (DESIGN section 4): the counters live in Redis,
shared by every web process, and exact under concurrency."""

import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

import pytest
import redis
import requests
import time_machine
from django.utils import timezone

from config.api import ratelimit
from config.api.models import RateCounter

from ..concurrency import run_concurrently
from ..conftest import make_merchant_with_key, redis_client
from ..servers import free_port, web_processes

pytestmark = pytest.mark.redis


def test_a_window_on_a_clock_behind_redis_counts_to_its_end(db):
    """A web machine whose clock runs behind Redis's: 59.5 s into one of its
    minutes, Redis's clock has already passed that minute's end. The counter
    must still live to the end of the web machine's window (an absolute
    EXPIREAT read on Redis's clock dropped it at once, so every request counted
    as the first)."""
    behind = timezone.now() - timedelta(minutes=2)
    late_in_its_minute = behind.replace(second=59, microsecond=500_000)

    with time_machine.travel(late_in_its_minute, tick=False):
        windows = [ratelimit.hit("clock-skew", limit=3) for _ in range(4)]

    assert [w.count for w in windows] == [1, 2, 3, 4]
    assert windows[-1].exceeded
    start = int(late_in_its_minute.timestamp()) // 60 * 60
    key = f"rl:clock-skew:{start}"
    assert int(redis_client().get(key)) == 4
    assert 0 < redis_client().ttl(key) <= 2
    assert not RateCounter.objects.exists()


def test_threads_of_one_web_process_share_one_redis_client(monkeypatch):
    """A threaded web process starts with no client; its first requests arrive
    together. Each thread making its own let the losers' clients be collected,
    closing connections still in use (500s under load)."""
    monkeypatch.setattr(ratelimit, "_redis_client", None)
    make_client = redis.Redis.from_url

    def slow_to_make(url, **options):
        time.sleep(0.02)  # widens the window: not a clock rule
        return make_client(url, **options)

    monkeypatch.setattr(redis.Redis, "from_url", slow_to_make)

    clients = run_concurrently(ratelimit._redis, 16)

    assert len({id(client) for client in clients}) == 1
    assert clients[0] is ratelimit._redis()


@pytest.mark.django_db(transaction=True)
def test_two_web_processes_under_concurrency_count_every_request_once():
    """150 requests at once over two gunicorn processes of four threads each,
    against a budget of 100: exactly 100 pass, each seeing its own count (no
    two requests read the same value), and the 50 others get 429; Redis holds
    the count. The window is a calendar minute of the real clock; a burst that
    straddles two, or whose window ends before its counter is read, is played
    again with a new merchant."""
    with web_processes(2, threads=4) as urls:
        for _attempt in range(3):
            merchant = make_merchant_with_key()
            path = f"/api/v1/merchant/{merchant.merchant.public_id}/api-key/history"
            headers = {"Authorization": f"Bearer {merchant.api_key}"}
            targets = [urls[n % 2] + path for n in range(150)]
            with ThreadPoolExecutor(16) as pool:
                replies = list(
                    pool.map(
                        lambda url: requests.get(url, headers=headers, timeout=60),
                        targets,
                    )
                )
            assert all("X-RateLimit-Reset" in r.headers for r in replies), [
                r.status_code for r in replies
            ]
            resets = {int(r.headers["X-RateLimit-Reset"]) for r in replies}
            if len(resets) == 1:
                start = resets.pop() - 60
                key = f"rl:principal:{merchant.merchant.public_id}:{start}"
                counted = redis_client().get(key)
                if counted is not None:
                    break
        else:
            pytest.fail("three bursts in a row did not fit in one minute")

    passed = [r for r in replies if r.status_code == 200]
    refused = [r for r in replies if r.status_code == 429]
    assert len(passed) == 100
    assert len(refused) == 50
    assert sorted(int(r.headers["X-RateLimit-Remaining"]) for r in passed) == list(
        range(100)
    )
    assert {r.json()["error"]["code"] for r in refused} == {"rate_limited"}
    assert {r.headers["X-RateLimit-Remaining"] for r in refused} == {"0"}
    # Counted in Redis, not in the database's counter table.
    assert int(counted) == 150
    assert not RateCounter.objects.exists()


# --- Redis unreachable: the database counts ------------------------------------


@pytest.fixture
def redis_refusing(monkeypatch):
    """The counters' Redis refuses connections (stopped): a port nothing
    listens on."""
    client = redis.Redis.from_url(f"redis://127.0.0.1:{free_port()}/0")
    monkeypatch.setattr(ratelimit, "_redis_client", client)


@pytest.fixture
def redis_silent(monkeypatch, settings):
    """The counters' Redis accepts connections and never answers (hung, or a
    network that drops replies): a socket that listens and never reads."""
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(16)
        settings.REDIS_URL = f"redis://127.0.0.1:{server.getsockname()[1]}/0"
        monkeypatch.setattr(ratelimit, "_redis_client", None)
        monkeypatch.setattr(ratelimit, "REDIS_TIMEOUT_SECONDS", 0.2, raising=False)
        yield


def test_while_redis_refuses_connections_the_database_counts(db, redis_refusing):
    windows = [ratelimit.hit("outage", limit=3) for _ in range(4)]

    assert [w.count for w in windows] == [1, 2, 3, 4]
    assert windows[-1].exceeded
    assert ratelimit.peek("outage", limit=3).count == 4
    assert RateCounter.objects.get().count == 4


def test_while_redis_is_down_the_api_answers_and_limits(
    api, merchant_with_key, redis_refusing
):
    url = f"/api/v1/merchant/{merchant_with_key.merchant.public_id}/api-key/history"

    replies = [api.get(url, **merchant_with_key.headers) for _ in range(2)]

    assert [r.status_code for r in replies] == [200, 200]
    assert [r["X-RateLimit-Remaining"] for r in replies] == ["99", "98"]


@pytest.mark.django_db(transaction=True)  # the thread's count commits
def test_a_redis_that_never_answers_times_out_to_the_database(redis_silent):
    """After REDIS_TIMEOUT_SECONDS the database counts (the client's timeout
    error was a 500)."""
    windows = []
    worker = threading.Thread(
        target=lambda: windows.append(ratelimit.hit("hung", limit=3)), daemon=True
    )
    worker.start()
    worker.join(30)

    assert not worker.is_alive(), "still waiting on Redis after 30 s"
    assert [w.count for w in windows] == [1]
    assert RateCounter.objects.get().count == 1
