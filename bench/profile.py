"""Where the time goes: the profiles quoted in bench/analysis.md, reproducible.

    python -m bench.profile api [PATH]     # default /api/v1/checkout/sessions
    python -m bench.profile engine [N]     # default 10,000 due installments
    python -m bench.profile instructions   # the engine's instructions per installment

`api` serves the product (or, for /baseline/sessions, the baseline app) with the
bench's gunicorn, loads it with wrk and meanwhile samples every worker with
py-spy; it also prints the CPU time per request of gunicorn and of PostgreSQL.
`engine` runs `collect_installments` on a fresh seed under py-spy. Both sample
only the thread holding the GIL (`--gil`), so the shares are of Python CPU time,
inclusive (a function and everything it calls). `instructions` counts the
instructions `collect_due` executes per collected installment under valgrind's
callgrind (the difference between a 500- and a 1,500-installment pass, so
start-up cancels out): unlike seconds, the count is the same from run to run
(within 0.5% here) whatever else the machine runs, which makes two commits
comparable on a shared machine. Not part of `make bench`.
"""

import collections
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from . import api
from .common import PY, ROOT, fresh_database, gunicorn, log, psql
from .engine import _copy, _drop, _paid, _vars, seed_engine

SPY = str(Path(PY).with_name("py-spy"))
TICK = os.sysconf("SC_CLK_TCK")


def top(raw: Path, keep: str, limit: int = 40) -> str:
    """Inclusive shares of the frames whose name matches `keep`."""
    inclusive: collections.Counter = collections.Counter()
    total = 0
    for line in raw.read_text().splitlines():
        if not line.strip():
            continue
        stack, count = line.rsplit(" ", 1)
        total += int(count)
        seen = set()
        for frame in stack.split(";"):
            name = re.sub(r":\d+\)", ")", frame)
            if name not in seen:
                seen.add(name)
                inclusive[name] += int(count)
    rows = [
        f"| {100 * n / total:.1f}% | `{name}` |"
        for name, n in inclusive.most_common()
        if re.search(keep, name)
    ][:limit]
    return "\n".join([f"{total} samples", "| share | frame |", "|---:|---|", *rows])


def _cpu() -> dict[str, float]:
    out = {"gunicorn": 0.0, "postgres": 0.0}
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            stat = (proc / "stat").read_text()
            cmd = (proc / "cmdline").read_bytes()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        seconds = (int(fields[11]) + int(fields[12])) / TICK
        if b"gunicorn" in cmd:
            out["gunicorn"] += seconds
        elif "(postgres)" in stat.split(" ", 2)[1] or cmd.startswith(b"postgres"):
            out["postgres"] += seconds
    return out


def _record(pid: int, seconds: int, out: Path, subprocesses: bool) -> subprocess.Popen:
    args = [SPY, "record", "--pid", str(pid), "-r", "200", "-f", "raw", "--gil"]
    args += ["-o", str(out), "--nonblocking"]
    args += ["--subprocesses"] if subprocesses else []
    args += ["-d", str(seconds)] if seconds else []
    return subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def profile_api(path: str) -> None:
    with fresh_database() as env:
        merchant = json.loads(env.python(api.MERCHANT))
        body = api.preview_body(merchant) if "preview" in path else api.body(merchant)
        script = Path(tempfile.mkstemp(suffix=".lua")[1])
        script.write_text(api.WRK_SCRIPT)
        load = {
            **os.environ,
            "WRK_API_KEY": merchant["key"],
            "WRK_BODY": body,
            "WRK_PATH": path,
        }
        settings = (
            "bench.baseline.settings" if "baseline" in path else "config.settings"
        )
        raw = Path(tempfile.mkstemp(suffix=".txt")[1])
        with gunicorn(env, settings) as (proc, url):
            api.wrk(url, script, 3, load)
            before, started = _cpu(), time.monotonic()
            spy = _record(proc.pid, 10, raw, subprocesses=True)
            result = api.wrk(url, script, 10, load)
            spy.wait()
            after, seconds = _cpu(), time.monotonic() - started
        requests = result["rps"] * seconds
        per = {k: round((after[k] - before[k]) / requests * 1e6) for k in after}
        print(f"{path}: {result}; CPU per request (us): {per}")
        print(
            top(raw, r"\((?!<frozen)(config|checkout|merchants|django|rest_fr|psyco)")
        )
        script.unlink()
        raw.unlink()


def profile_engine(count: int) -> None:
    with fresh_database() as env:
        seed = f"{env.db}_engine"
        psql(f"CREATE DATABASE {seed} TEMPLATE {env.db}")
        try:
            seed_engine(env, seed, count, 100, count // 5)
            copy = _copy(env, seed, f"{seed}_p")
            raw = Path(tempfile.mkstemp(suffix=".txt")[1])
            started = time.monotonic()
            proc = subprocess.Popen(
                [PY, "manage.py", "collect_installments"],
                cwd=ROOT,
                env=_vars(env, copy),
                stdout=subprocess.DEVNULL,
            )
            spy = _record(proc.pid, 0, raw, subprocesses=False)
            proc.wait()
            seconds = time.monotonic() - started
            spy.wait()
            print(f"{_paid(copy)} paid in {seconds:.1f} s")
            print(top(raw, r"\((installments|payments|webhooks|config|django|psyco)"))
            raw.unlink()
            _drop(copy)
        finally:
            _drop(seed)


_COLLECT = (
    "import django; django.setup()\n"
    "from installments.collection import collect_due\n"
    "print(collect_due().line())\n"
)


def engine_instructions(sizes: tuple[int, int] = (500, 1_500)) -> float:
    """Instructions of the collecting process per installment collected (every
    one paid on the sandbox's good card), by callgrind."""
    counts = {}
    with fresh_database() as env:
        for size in sizes:
            seed = f"{env.db}_i{size}"
            psql(f"CREATE DATABASE {seed} TEMPLATE {env.db}")
            try:
                seed_engine(env, seed, size, 100, size // 5)
                run = subprocess.run(
                    ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"]
                    + [PY, "-c", _COLLECT],
                    cwd=ROOT,
                    env=_vars(env, seed),
                    capture_output=True,
                    text=True,
                    check=True,
                )
                counts[size] = int(re.search(r"Collected : (\d+)", run.stderr)[1])
                log(f"{size}: {counts[size]:,} instructions; {run.stdout.strip()}")
            finally:
                _drop(seed)
    small, large = sizes
    return (counts[large] - counts[small]) / (large - small)


def main() -> None:
    what = sys.argv[1] if len(sys.argv) > 1 else "api"
    if what == "instructions":
        print(f"{engine_instructions():,.0f} instructions per installment")
    elif what == "engine":
        profile_engine(int(sys.argv[2]) if len(sys.argv) > 2 else 10_000)
    else:
        profile_api(sys.argv[2] if len(sys.argv) > 2 else "/api/v1/checkout/sessions")


if __name__ == "__main__":
    main()
