"""/readyz reads the heartbeat a real `manage.py qcluster` writes (with the ORM
broker into the cache, with REDIS_URL into Redis): ready while it runs, not ready
once its heartbeat is stale or it has stopped."""

from datetime import timedelta

import pytest
import time_machine
from django.test import Client
from django.utils import timezone

from tests import servers
from tests.servers import wait_for

pytestmark = pytest.mark.django_db(transaction=True)


def cluster_verdict(client) -> tuple[int, str]:
    response = client.get("/readyz")
    return response.status_code, response.json()["checks"]["cluster"]


def test_readyz_follows_a_real_task_cluster(tmp_path):
    client = Client()
    log = tmp_path / "qcluster.log"
    before = cluster_verdict(client)

    with servers.qcluster(log) as proc:
        servers.wait_until_running(proc, log)
        ready = wait_for(lambda: cluster_verdict(client) == (200, "ok"))
        with time_machine.travel(timezone.now() + timedelta(seconds=60)):
            stale = cluster_verdict(client)
        # The stale read dropped the entry from django-q2's list of clusters;
        # the next heartbeat (half a second) puts it back.
        again = wait_for(lambda: cluster_verdict(client) == (200, "ok"))
    # Killed: its last heartbeat lives 3 seconds.
    gone = wait_for(lambda: cluster_verdict(client)[0] == 503)

    assert before == (503, "no task cluster is running (no heartbeat)")
    assert ready, f"never ready; qcluster said: {log.read_text()[-3000:]}"
    assert stale[0] == 503
    assert stale[1].startswith("no task cluster")
    assert again
    assert gone
