"""The web processes as deployed (docs/operations.md): gunicorn with
config/gunicorn.py. With PROMETHEUS_MULTIPROC_DIR, /metrics counts the requests of
every process, whichever process answers the scrape and after workers were
replaced; with LOG_FORMAT=json every line gunicorn and the service print is one
JSON object, and a line logged during a request carries its request id."""

import json
import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
import requests
from prometheus_client.parser import text_string_to_metric_families

from tests import servers

pytestmark = pytest.mark.django_db(transaction=True)

TOKEN = secrets.token_urlsafe(32)
HEALTHZ_REQUESTS = 30
# Each worker is replaced after this many requests: the counts of the ones gone
# must stay in the sums.
MAX_REQUESTS = 10


@pytest.fixture(scope="module")
def gunicorn(django_db_setup, django_db_blocker, tmp_path_factory):
    folder = tmp_path_factory.mktemp("metrics")
    (folder / "counter_999999.db").write_bytes(b"stale: from an earlier run")
    port = servers.free_port()
    with django_db_blocker.unblock():
        database_url = servers.test_database_url()
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "tests.settings",
        "DATABASE_URL": database_url,
        "PROMETHEUS_MULTIPROC_DIR": str(folder),
        "METRICS_TOKEN": TOKEN,
        "LOG_FORMAT": "json",
    }
    command = [
        str(Path(sys.executable).with_name("gunicorn")),
        *("-c", "config/gunicorn.py", "config.wsgi", "-b", f"127.0.0.1:{port}"),
        *("-w", "2", "--max-requests", str(MAX_REQUESTS)),
    ]
    stderr = folder.parent / "gunicorn.stderr"
    with open(stderr, "wb") as err:
        proc = subprocess.Popen(
            command, cwd=servers.ROOT, env=env, stdout=err, stderr=err
        )
    url = f"http://127.0.0.1:{port}"
    try:
        servers.wait_until_serving(proc, url, "/readyz")
        yield url, folder, stderr, proc
    finally:
        proc.terminate()
        proc.wait(timeout=servers.READY_SECONDS)


def healthz_count(url: str) -> float:
    response = requests.get(
        f"{url}/metrics",
        headers={"Authorization": f"Bearer {TOKEN}"},
        timeout=servers.READY_SECONDS,
    )
    assert response.status_code == 200, response.text
    for family in text_string_to_metric_families(response.text):
        for sample in family.samples:
            if sample.name == "http_requests_total" and sample.labels == {
                "route": "healthz",
                "method": "GET",
                "status": "200",
            }:
                return sample.value
    return 0


def test_metrics_count_the_requests_of_every_process(gunicorn):
    url, folder, _, _ = gunicorn
    with requests.Session() as session:
        for _ in range(HEALTHZ_REQUESTS):
            assert (
                session.get(f"{url}/healthz", timeout=servers.READY_SECONDS).status_code
                == 200
            )

    counts = [healthz_count(url) for _ in range(4)]

    assert counts == [HEALTHZ_REQUESTS] * 4
    processes = {path.name.split("_")[1] for path in folder.glob("counter_*.db")}
    assert "999999.db" not in processes, "the folder is emptied at start"
    # At least 30 requests, at most 10 per worker process: several answered.
    assert len(processes) >= 3


def test_every_line_is_json_and_a_requests_line_carries_its_id(gunicorn):
    url, _, stderr, proc = gunicorn
    response = requests.get(
        f"{url}/api/v1/auth/merchant/login",
        headers={"Host": "attacker.example", "X-Request-Id": "json-line-1"},
        timeout=servers.READY_SECONDS,
    )
    assert response.status_code == 400

    def logged() -> list[dict]:
        lines = stderr.read_text().splitlines()
        return [json.loads(line) for line in lines if line.strip()]

    # The worker writes its line after the answer.
    written = servers.wait_for(
        lambda: [r for r in logged() if r.get("request_id") == "json-line-1"]
    )
    assert written, stderr.read_text()[-3000:]

    records = logged()
    assert {"gunicorn.error"} <= {r["logger"] for r in records}
    for record in records:
        assert {"timestamp", "level", "logger", "message"} <= set(record)
    [line] = [r for r in records if r.get("request_id") == "json-line-1"]
    assert line["logger"] == "django.security.DisallowedHost"
    assert line["level"] == "ERROR"
    assert "attacker.example" in line["message"]
