"""`/healthz` and `/readyz` (DESIGN section 16): no authentication, nothing but the
checks' verdicts in the answer. /readyz is 503, naming what failed, while the
database is unreachable, a migration is not applied, or no task cluster's
heartbeat is fresh, and 200 otherwise. The heartbeat is read where django-q2
writes it: the cache with the ORM broker, Redis with the Redis broker (.ci/run's
Redis pass runs this module again with REDIS_URL)."""

import json
import logging
import uuid
from datetime import timedelta

import pytest
import time_machine
from django.db import connection, connections
from django.db.migrations.loader import MigrationLoader
from django.db.migrations.recorder import MigrationRecorder
from django.test import Client
from django.utils import timezone
from django_q.brokers import get_broker
from django_q.conf import Conf
from django_q.signing import SignedPackage
from django_q.status import Stat, Status

pytestmark = pytest.mark.django_db

OK = {"database": "ok", "migrations": "ok", "cluster": "ok"}


def beat(status=Conf.IDLE) -> None:
    """What a running cluster's sentinel saves every half second (django-q2's
    `Stat.save()`: the signed status under its key, for 3 seconds)."""
    stat = Status(pid=1, cluster_id=uuid.uuid4())
    stat.status = status
    get_broker().set_stat(Stat.get_key(stat.cluster_id), SignedPackage.dumps(stat), 3)


def readyz(client=None, **headers):
    response = (client or Client()).get("/readyz", **headers)
    assert response["Content-Type"] == "application/json"
    assert response["Cache-Control"] == "no-store"
    return response.status_code, response.json()


def test_ready_with_the_database_the_migrations_and_a_fresh_heartbeat():
    beat()

    assert readyz() == (200, {"status": "ready", "checks": OK})


@pytest.mark.usefixtures("database_refusing")
def test_healthz_answers_without_the_database():
    response = Client().get("/healthz")

    assert response.status_code == 200
    assert response.json() == {"status": "ok"}
    assert response["Cache-Control"] == "no-store"


@pytest.mark.usefixtures("database_refusing")
def test_not_ready_while_the_database_refuses_connections():
    status, body = readyz()

    assert status == 503
    assert body["status"] == "unavailable"
    assert body["failed"] == ["database", "migrations", "cluster"]
    assert body["checks"]["database"] == "unreachable"
    assert body["checks"]["migrations"] == "not checked: the database is unreachable"


@pytest.mark.usefixtures("database_refusing")
def test_the_answer_names_no_host_port_or_error():
    port = str(connections["default"].settings_dict["PORT"])  # the refusing one

    response = Client().get("/readyz")

    text = response.content.decode()
    assert response.status_code == 503
    for secret in ("127.0.0.1", port, "refused", "Error", "installments"):
        assert secret not in text


def test_not_ready_when_the_heartbeat_is_stale():
    beat()

    with time_machine.travel(timezone.now() + timedelta(seconds=60), tick=False):
        status, body = readyz()

    assert status == 503
    assert body["failed"] == ["cluster"]
    assert body["checks"]["database"] == "ok"
    assert body["checks"]["migrations"] == "ok"
    assert "no task cluster" in body["checks"]["cluster"]


def test_a_heartbeat_within_the_allowed_age_is_fresh(settings):
    settings.CLUSTER_HEARTBEAT_MAX_AGE = 30
    beat()

    with time_machine.travel(timezone.now() + timedelta(seconds=2), tick=False):
        status, _ = readyz()

    assert status == 200


def test_not_ready_without_any_cluster():
    status, body = readyz()

    assert status == 503
    assert body["failed"] == ["cluster"]
    assert body["checks"]["cluster"] == "no task cluster is running (no heartbeat)"


def test_a_stopping_cluster_does_not_make_the_service_ready():
    beat(status=Conf.STOPPING)

    status, body = readyz()

    assert status == 503
    assert body["failed"] == ["cluster"]


def test_not_ready_while_a_migration_is_not_applied():
    """As after a deploy whose release step `migrate` did not run (or failed)."""
    beat()
    app, name = MigrationLoader(connection).graph.leaf_nodes()[0]
    MigrationRecorder.Migration.objects.filter(app=app, name=name).delete()

    status, body = readyz()

    assert status == 503
    assert body["failed"] == ["migrations"]
    assert body["checks"]["migrations"] == "1 migration(s) not applied"


def test_a_failing_check_is_logged_when_it_starts_and_ends_not_per_probe(caplog):
    caplog.set_level(logging.INFO, logger="config.observability.health")
    readyz()  # whatever an earlier test left is forgotten from here on
    beat()
    readyz()
    caplog.clear()

    with time_machine.travel(timezone.now() + timedelta(seconds=60), tick=False):
        for _ in range(3):
            assert readyz()[0] == 503
    beat()
    assert readyz()[0] == 200

    messages = [(r.levelname, r.getMessage()) for r in caplog.records]
    assert len(messages) == 2
    assert messages[0][0] == "WARNING"
    assert messages[0][1].startswith("Not ready: cluster: no task cluster")
    assert messages[1] == ("INFO", "Ready again: cluster is ok.")


@pytest.mark.parametrize("path", ["/healthz", "/readyz"])
def test_probes_reach_a_process_by_its_address_over_plain_http(settings, path):
    """Load balancers probe each process by its IP, over http: neither the host
    check nor the redirect to https may answer for these endpoints."""
    settings.ALLOWED_HOSTS = ["pay.example.com"]
    settings.SECURE_SSL_REDIRECT = True
    beat()
    by_address = Client(HTTP_HOST="10.0.3.7:8000")
    by_name = Client(HTTP_HOST="pay.example.com")
    login = "/api/v1/auth/merchant/login"

    assert by_address.get(login).status_code == 400
    assert by_name.get(login).status_code == 301
    for client in (by_address, by_name):
        response = client.get(path)
        assert response.status_code == 200, response.content
        assert json.loads(response.content)["status"] in ("ok", "ready")


def test_probes_are_read_only_and_take_the_trailing_slash():
    beat()
    client = Client()

    assert client.post("/readyz").status_code == 405
    assert client.get("/healthz/").status_code == 200
    assert client.get("/readyz/").status_code == 200


def test_answers_carry_the_request_id():
    response = Client().get("/healthz", HTTP_X_REQUEST_ID="probe-1")

    assert response["X-Request-Id"] == "probe-1"
