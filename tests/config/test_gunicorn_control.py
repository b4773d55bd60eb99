"""gunicorn's control socket (`gunicornc`) is each master's own (issue 25 item 13):
gunicorn's default is one path per user, so a second gunicorn of the user on the
host took over the first's socket (`gunicornc shutdown` would have stopped the
wrong one) and whichever stopped first removed it. config/gunicorn.py names it
by the master's pid."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests import servers

pytestmark = pytest.mark.django_db(transaction=True)

GUNICORNC = str(Path(sys.executable).with_name("gunicornc"))


def control_sockets(pid: int) -> list[str]:
    """Paths of the Unix sockets process `pid` holds that end in `.ctl` (read
    from /proc: a socket whose file another process replaced keeps its path)."""
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue  # closed meanwhile
        if target.startswith("socket:["):
            inodes.add(target.removeprefix("socket:[").removesuffix("]"))
    paths = []
    for line in Path("/proc/net/unix").read_text().splitlines()[1:]:
        fields = line.split()
        if len(fields) >= 8 and fields[6] in inodes and fields[7].endswith(".ctl"):
            paths.append(fields[7])
    return paths


def stats(path: str) -> dict:
    """`gunicornc -s PATH -c "show stats" -j`: what answers at that socket."""
    answer = subprocess.run(
        [GUNICORNC, "-s", path, "-c", "show stats", "-j"],
        capture_output=True,
        text=True,
        timeout=servers.READY_SECONDS,
        check=True,
    )
    return json.loads(answer.stdout)


def test_two_gunicorns_each_answer_on_their_own_control_socket():
    with servers.gunicorns(2) as started:
        masters = [server.proc.pid for server in started]
        # The master opens its control socket once its workers are up.
        assert all(servers.wait_for(lambda p=p: control_sockets(p)) for p in masters)
        paths = [control_sockets(pid) for pid in masters]
        answering = [stats(path)["pid"] for [path] in paths]
    assert len({path for [path] in paths}) == 2, paths
    assert answering == masters
    for [path] in paths:
        assert Path(path).name.startswith("gunicorn-")
        assert not Path(path).exists(), "a stopped master removes its own socket"


def test_a_control_socket_given_on_the_command_line_is_kept(tmp_path):
    chosen = tmp_path / "web.ctl"
    port = servers.free_port()
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "tests.settings",
        "DATABASE_URL": servers.test_database_url(),
    }
    proc = subprocess.Popen(
        [str(Path(sys.executable).with_name("gunicorn")), "-c", "config/gunicorn.py"]
        + ["config.wsgi", "-b", f"127.0.0.1:{port}", "-w", "1"]
        + ["--control-socket", str(chosen), "--log-level", "warning"],
        cwd=servers.ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        servers.wait_until_serving(proc, f"http://127.0.0.1:{port}")
        assert servers.wait_for(lambda: control_sockets(proc.pid))
        held = control_sockets(proc.pid)
        answered = stats(str(chosen))["pid"]
    finally:
        proc.terminate()
        proc.wait(timeout=servers.READY_SECONDS)
    assert held == [str(chosen)]
    assert answered == proc.pid
