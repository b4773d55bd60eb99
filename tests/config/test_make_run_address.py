"""`make run ADDR=host:port` builds the service's links on that address: BASE_URL
follows ADDR unless BASE_URL is set (issue 25, item 8). With BASE_URL left on
port 8000, the checkout's "Add a card" redirected to another origin, which the
browser refused.

What `make -n` prints is what `make run` runs; the settings are read in a fresh
process given the environment those command lines give it."""

import json
import os
import re
import shlex
import subprocess
import sys

import pytest

from tests import servers

# Variables a caller's environment may hold that would hide what make derives.
CLEARED = ("BASE_URL", "CONSUMER_URL", "ALLOWED_HOSTS", "DJANGO_SETTINGS_MODULE")


def make_dry_run(*args: str, **env: str) -> list[str]:
    """The manage.py command lines `make -n <args>` prints."""
    base = {k: v for k, v in os.environ.items() if k not in CLEARED}
    answer = subprocess.run(
        ["make", "--no-print-directory", "-n", *args],
        cwd=servers.ROOT,
        env={**base, **env},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert answer.returncode == 0, answer.stderr
    return [line for line in answer.stdout.splitlines() if "manage.py" in line]


def assignments(line: str) -> dict:
    """The VAR=value words before the command on one of make's lines."""
    words = shlex.split(line.strip().rstrip("&\\ "))
    found = {}
    for word in words:
        name, equals, value = word.partition("=")
        if not equals or not re.fullmatch(r"[A-Z_]+", name):
            break
        found[name] = value
    return found


def settings_given(env: dict) -> dict:
    """config.settings as a process started with `env` reads them."""
    base = {k: v for k, v in os.environ.items() if k not in CLEARED}
    code = (
        "import json; from django.conf import settings; "
        "print(json.dumps({'base': settings.BASE_URL, "
        "'consumer': settings.CONSUMER_URL, "
        "'servers': settings.SPECTACULAR_SETTINGS['SERVERS'], "
        "'hosts': settings.ALLOWED_HOSTS}))"
    )
    answer = subprocess.run(
        [sys.executable, "-c", code],
        cwd=servers.ROOT,
        env={**base, "DJANGO_SETTINGS_MODULE": "config.settings", **env},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert answer.returncode == 0, answer.stderr
    return json.loads(answer.stdout)


def test_make_run_on_another_address_builds_every_link_on_it():
    lines = make_dry_run("run", "ADDR=127.0.0.1:8101")
    commands = {line.split("manage.py")[1].split()[0]: line for line in lines}
    assert set(commands) >= {"migrate", "seed_demo", "qcluster", "runserver"}
    assert "runserver 127.0.0.1:8101" in commands["runserver"]
    # The web server, the task cluster (e-mails) and the seed get the same address.
    for line in lines:
        assert assignments(line)["BASE_URL"] == "http://127.0.0.1:8101", line

    seen = settings_given(assignments(commands["runserver"]))
    assert seen["base"] == "http://127.0.0.1:8101"
    assert seen["consumer"] == "http://127.0.0.1:8101"  # payment links
    assert seen["servers"] == [{"url": "http://127.0.0.1:8101"}]  # the API reference
    assert "127.0.0.1" in seen["hosts"]


def test_a_bare_port_is_served_and_linked_on_127_0_0_1():
    (runserver,) = [
        line for line in make_dry_run("run", "ADDR=8101") if "runserver" in line
    ]
    assert assignments(runserver)["BASE_URL"] == "http://127.0.0.1:8101"


@pytest.mark.parametrize("where", ["environment", "command line"])
def test_a_base_url_that_is_set_is_kept(where):
    url = "https://pay.example.ng"
    if where == "environment":
        lines = make_dry_run("run", "ADDR=127.0.0.1:8101", BASE_URL=url)
    else:
        lines = make_dry_run("run", "ADDR=127.0.0.1:8101", f"BASE_URL={url}")
    (runserver,) = [line for line in lines if "runserver" in line]
    assert "runserver 127.0.0.1:8101" in runserver
    assert assignments(runserver)["BASE_URL"] == url
    assert settings_given(assignments(runserver))["servers"] == [{"url": url}]


def test_the_default_address_keeps_port_8000():
    (runserver,) = [line for line in make_dry_run("run") if "runserver" in line]
    assert assignments(runserver)["BASE_URL"] == "http://127.0.0.1:8000"


def test_demo_password_prints_the_sign_in_address_of_addr():
    (line,) = make_dry_run("demo-password", "ADDR=127.0.0.1:8101")
    assert assignments(line)["BASE_URL"] == "http://127.0.0.1:8101"
