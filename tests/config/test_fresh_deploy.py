"""A deploy's release steps are `migrate` and `setup_schedules` (every platform's
release step runs `migrate`; nothing else may be a manual step that fails
quietly). On a fresh database, with nothing more, a real cluster delivers an
emitted event at once, and neither the committing process nor the cluster logs an
error."""

import subprocess
import sys
import uuid

import psycopg
import pytest
from django.db import connection

from tests import servers
from tests.receivers import Receiver
from tests.webhooks.conftest import SECRET

DELIVERED_WITHIN_SECONDS = 2

EMIT = """
import django
django.setup()
from django.db import transaction
from merchants.models import Merchant
from tests.factories import MerchantFactory
from webhooks import services

merchant = MerchantFactory(
    status=Merchant.Status.ACTIVE,
    api_access_enabled=True,
    webhook_url={url!r},
    webhook_secret={secret!r},
)
with transaction.atomic():
    event = services.emit_event(
        merchant=merchant,
        event_type="payment.success",
        data={{"resourceType": "payment_plan", "resourceId": "plan_1"}},
    )
print(event.public_id)
"""


def _postgres_admin() -> psycopg.Connection:
    db = connection.settings_dict
    return psycopg.connect(
        host=db.get("HOST") or "127.0.0.1",
        port=db.get("PORT") or 5432,
        user=db.get("USER") or "postgres",
        password=db.get("PASSWORD") or None,
        dbname="postgres",
        autocommit=True,
    )


@pytest.fixture(
    params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)]
)
def fresh_database_url(request, tmp_path):
    """A database nothing has touched yet: a new SQLite file, or a new PostgreSQL
    database beside the test database (named after it)."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'fresh.sqlite3'}"
        return
    db = connection.settings_dict
    name = f"{db['NAME']}_fresh_{uuid.uuid4().hex[:8]}"
    with _postgres_admin() as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    auth = f"{db.get('USER') or 'postgres'}"
    if db.get("PASSWORD"):
        auth += f":{db['PASSWORD']}"
    host = db.get("HOST") or "127.0.0.1"
    try:
        yield f"postgres://{auth}@{host}:{db.get('PORT') or 5432}/{name}"
    finally:
        with _postgres_admin() as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _manage(env: dict, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=servers.ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )


def test_a_fresh_deploy_delivers_an_emitted_event_at_once(fresh_database_url, tmp_path):
    env = servers.qcluster_env(fresh_database_url)
    _manage(env, "migrate", "--noinput")
    _manage(env, "setup_schedules")
    receiver = Receiver()
    log = tmp_path / "qcluster.log"
    try:
        with servers.qcluster(log, env) as cluster:
            servers.wait_until_running(cluster, log)

            emitted = subprocess.run(
                [sys.executable, "-c", EMIT.format(url=receiver.url, secret=SECRET)],
                cwd=servers.ROOT,
                env=env,
                capture_output=True,
                text=True,
            )
            arrived = receiver.arrived.wait(DELIVERED_WITHIN_SECONDS)
    finally:
        receiver.close()

    assert emitted.returncode == 0, emitted.stderr
    assert "Traceback" not in emitted.stderr
    assert " ERROR " not in emitted.stderr
    assert arrived, f"not delivered; qcluster said: {log.read_text()[-3000:]}"
    assert receiver.event_ids() == [emitted.stdout.strip()]
    assert " ERROR " not in log.read_text(), log.read_text()[-3000:]
