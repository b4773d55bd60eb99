"""`make run ADDR=<not 8000>` works for a new merchant's first checkout (issue 25,
Done means): `make run` itself starts on a free port with a database of its own
(migrate, the demo seed, the task cluster, runserver, as on a clean clone), and
Chromium opens the seeded payment link, registers a customer, adds the sandbox
card on the sandbox's card page and pays the deposit.

Before BASE_URL followed ADDR, "Add a card" sent the browser to port 8000, the
checkout's Content-Security-Policy refused it and the page did nothing."""

import hashlib
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time

import pytest
import requests
from playwright.sync_api import expect

from tests import servers

from ..factories import PASSWORD
from .conftest import AGREE, DESKTOP

# What a caller's environment may hold that `make run` on a clean clone has not.
CLEARED = (
    "BASE_URL",
    "CONSUMER_URL",
    "ALLOWED_HOSTS",
    "REDIS_URL",
    "DATABASE_URL",
    "DJANGO_SETTINGS_MODULE",
)
START_WITHIN_SECONDS = 600  # migrate and a month of demo data on a busy machine


def stamp() -> str:
    """The Makefile's "requirements installed" file: not remade here (no network)."""
    digest = hashlib.sha1((servers.ROOT / "requirements.txt").read_bytes())
    return f".venv/.installed-{digest.hexdigest()[:12]}"


def serving(url: str) -> bool:
    try:
        return requests.get(url, timeout=servers.READY_SECONDS).status_code == 200
    except requests.RequestException:
        return False


@pytest.fixture
def make_run(tmp_path):
    """`make run ADDR=127.0.0.1:<free port>` in its own process group; yields
    (address, database file, log)."""
    addr = f"127.0.0.1:{servers.free_port()}"
    assert not addr.endswith(":8000")
    database = tmp_path / "run.sqlite3"
    log = tmp_path / "make_run.log"
    env = {k: v for k, v in os.environ.items() if k not in CLEARED}
    env["DATABASE_URL"] = f"sqlite:///{database}"
    with open(log, "wb") as out:
        make = subprocess.Popen(
            ["make", "--no-print-directory", "-o", stamp(), "run", f"ADDR={addr}"]
            + [f"PY={sys.executable}"],
            cwd=servers.ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + START_WITHIN_SECONDS
        while not serving(f"http://{addr}/healthz"):
            if make.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"make run did not serve: {log.read_text()[-3000:]}")
            time.sleep(0.5)  # polling a real process's port, not a clock rule
        yield addr, database, log
    finally:
        if servers.live_group_members(make.pid):
            os.killpg(make.pid, signal.SIGTERM)
            try:
                make.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(make.pid, signal.SIGKILL)
        make.wait()


def seeded_link_slug(database) -> str:
    with sqlite3.connect(database) as db:
        ((slug,),) = db.execute(
            "SELECT slug FROM checkout_paymentlink WHERE title = ?",
            ["Hisense 43-inch Smart TV"],
        ).fetchall()
    return slug


def test_make_run_on_another_port_takes_a_deposit_through_the_sandbox_card(
    browser, make_run
):
    addr, database, log = make_run
    base = f"http://{addr}"
    # The links the service builds are on the address it serves.
    assert f"sign in at {base}/dashboard/login/" in log.read_text()
    schema = requests.get(
        f"{base}/api/v1/schema/?format=json", timeout=servers.READY_SECONDS
    ).json()
    assert schema["servers"] == [{"url": base}]

    context = browser.new_context(base_url=base, viewport=DESKTOP)
    page = context.new_page()
    page.set_default_timeout(60_000)
    problems = []
    page.on("pageerror", lambda error: problems.append(f"JavaScript error: {error}"))
    page.on(
        "console",
        lambda message: (
            message.type == "error" and problems.append(f"console: {message.text}")
        ),
    )
    try:
        page.goto(f"/l/{seeded_link_slug(database)}")
        expect(page).to_have_url(re.compile(rf"^{base}/checkout/fcs_[0-9A-Za-z]+$"))
        expect(page.get_by_text("Hisense 43-inch Smart TV")).to_be_visible()

        new = page.get_by_role("region", name="I'm new here")
        new.get_by_label("Email").fill("first.hour@mail.example.com")
        new.get_by_label("First name").fill("Ada")
        new.get_by_label("Last name").fill("Obi")
        new.get_by_label("Phone number").fill("+2348012345678")
        new.get_by_label("Password").fill(PASSWORD)
        new.get_by_role("button", name="Create account").click()
        expect(page.get_by_test_id("no-methods")).to_be_visible()

        page.get_by_role("button", name="Add a card").click()
        expect(page).to_have_url(re.compile(rf"^{base}/sandbox/authorize/"))
        page.get_by_label("Card number").fill("4084084084084081")
        page.get_by_role("button", name="Pay and continue").click()
        expect(page).to_have_url(re.compile(rf"^{base}/checkout/fcs_\w+\?method=pm_"))
        expect(page.get_by_text("Visa •••• 4081 is saved.")).to_be_visible()

        page.get_by_label(AGREE).check()
        page.get_by_role("button", name=re.compile(r"^Pay ₦[\d,.]+ now$")).click()

        expect(page.get_by_role("heading", name="Deposit paid")).to_be_visible()
        expect(page.get_by_test_id("step-error")).to_have_count(0)
    finally:
        context.close()
    assert problems == []
