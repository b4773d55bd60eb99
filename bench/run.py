"""`make bench`: each figure measured beside its baseline in the same run.

Runs against the machine's PostgreSQL on a fresh database, prints a table and writes
bench/results.json and bench/RESULTS.md. Nothing here is a pass/fail test.

    python -m bench.run [--quick]
"""

import argparse
import json
import os
import platform
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"
PY = sys.executable
PG = "postgres://postgres@127.0.0.1:5432"

# gunicorn configuration measured here and recommended for production (RESULTS.md).
GUNICORN_WORKERS = 3
GUNICORN_THREADS = 4


def log(message: str) -> None:
    print(f"[bench {datetime.now():%H:%M:%S}] {message}", flush=True)


def psql(sql: str) -> None:
    subprocess.run(
        ["psql", "-h", "127.0.0.1", "-U", "postgres", "-q", "-c", sql],
        check=True,
        capture_output=True,
    )


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Env:
    """The environment every bench process shares: one fresh database."""

    def __init__(self) -> None:
        self.db = f"bench_{int(time.time())}_{os.getpid()}"
        self.vars = {
            **os.environ,
            "DATABASE_URL": f"{PG}/{self.db}",
            "SECRET_KEY": "bench-secret-key-not-for-production-0123456789",
            "DEBUG": "false",
            "ALLOWED_HOSTS": "127.0.0.1,localhost",
            # The limiter still runs on every request; the budget is just out of reach.
            "RATE_LIMIT_SANDBOX": "100000000",
            "RATE_LIMIT_PRODUCTION": "100000000",
            "LOG_LEVEL": "WARNING",
            "EMAIL_URL": "dummymail://",
            "PYTHONPATH": str(ROOT),
        }

    def manage(self, *args: str, settings: str = "config.settings") -> str:
        result = subprocess.run(
            [PY, "manage.py", *args],
            cwd=ROOT,
            env={**self.vars, "DJANGO_SETTINGS_MODULE": settings},
            check=True,
            capture_output=True,
            text=True,
        )
        return result.stdout

    def python(self, code: str) -> str:
        setup = "import django; django.setup()\n"
        result = subprocess.run(
            [PY, "-c", setup + code],
            cwd=ROOT,
            env={**self.vars, "DJANGO_SETTINGS_MODULE": "config.settings"},
            check=True,
            capture_output=True,
            text=True,
        )
        return result.stdout.strip()


@contextmanager
def fresh_database():
    env = Env()
    psql(f"CREATE DATABASE {env.db}")
    try:
        log(f"database {env.db}: migrating")
        env.manage("migrate", "--noinput")
        env.manage("createcachetable")
        psql_db(
            env,
            "CREATE TABLE bench_baseline_row "
            "(id bigserial primary key, token text, body text)",
        )
        yield env
    finally:
        psql(f"DROP DATABASE IF EXISTS {env.db} WITH (FORCE)")


def psql_db(env: Env, sql: str) -> None:
    subprocess.run(
        ["psql", "-h", "127.0.0.1", "-U", "postgres", "-q", "-d", env.db, "-c", sql],
        check=True,
        capture_output=True,
    )


@contextmanager
def gunicorn(env: Env, settings: str):
    port = free_port()
    proc = subprocess.Popen(
        [
            str(Path(PY).with_name("gunicorn")),
            "config.wsgi",
            "-b",
            f"127.0.0.1:{port}",
            "--workers",
            str(GUNICORN_WORKERS),
            "--worker-class",
            "gthread",
            "--threads",
            str(GUNICORN_THREADS),
            "--log-level",
            "warning",
        ],
        cwd=ROOT,
        env={**env.vars, "DJANGO_SETTINGS_MODULE": settings},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    url = f"http://127.0.0.1:{port}"
    for _ in range(300):
        if proc.poll() is not None:
            raise RuntimeError(proc.stderr.read().decode()[-2000:])
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            break
        except OSError:
            time.sleep(0.05)
    try:
        yield proc, url
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def peak_rss_mb(pid: int) -> float:
    """Highest VmHWM (peak resident set) among a process and its children."""
    pids = [pid]
    children = Path(f"/proc/{pid}/task/{pid}/children")
    if children.exists():
        pids += [int(p) for p in children.read_text().split()]
    peak = 0
    for each in pids:
        status = Path(f"/proc/{each}/status")
        if status.exists():
            match = re.search(r"VmHWM:\s+(\d+) kB", status.read_text())
            if match:
                peak = max(peak, int(match.group(1)))
    return round(peak / 1024, 1)


_UNITS = {"us": 0.001, "ms": 1.0, "s": 1000.0}


def _ms(text: str) -> float:
    number, unit = re.fullmatch(r"([\d.]+)(us|ms|s)", text).groups()
    return round(float(number) * _UNITS[unit], 2)


def wrk(url: str, script: Path, seconds: int, env: dict) -> dict:
    result = subprocess.run(
        ["wrk", "-t2", "-c16", f"-d{seconds}s", "--latency", "-s", str(script), url],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    out = result.stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    p50 = _ms(re.search(r"\s50%\s+(\S+)", out).group(1))
    p99 = _ms(re.search(r"\s99%\s+(\S+)", out).group(1))
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    return {
        "rps": round(rps, 1),
        "p50_ms": p50,
        "p99_ms": p99,
        "non_2xx": int(errors.group(1)) if errors else 0,
    }


WRK_SCRIPT = """
local counter = 0
local seed = tonumber(os.getenv("WRK_SEED") or "1")
function setup(thread)
  counter = counter + 1
  thread:set("tid", counter)
end
function init(args)
  math.randomseed(seed * 1000 + (tid or 0) * 7919 + os.time())
end
local function uuid4()
  return (string.gsub("xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx", "[xy]", function(c)
    local v = (c == "x") and math.random(0, 15) or math.random(8, 11)
    return string.format("%x", v)
  end))
end
local fixed_key = os.getenv("WRK_FIXED_KEY")
request = function()
  local headers = {
    ["Authorization"] = "Bearer " .. os.getenv("WRK_API_KEY"),
    ["Content-Type"] = "application/json",
    ["Idempotency-Key"] = fixed_key or uuid4(),
  }
  local body = os.getenv("WRK_BODY"):gsub("ORDER", uuid4())
  return wrk.format("POST", os.getenv("WRK_PATH"), headers, body)
end
"""


def api_section(env: Env, seconds: int) -> dict:
    merchant = json.loads(
        env.python(
            "import json\n"
            "from merchants import services\n"
            "m = services.merchant_register(email='bench@shop.ng', "
            "password='Bench-Passw0rd-42', business_name='Bench', "
            "business_url='https://bench.ng')\n"
            "m = services.merchant_approve(merchant=m)\n"
            "m = services.merchant_set_api_access(merchant=m, enabled=True)\n"
            "m = services.merchant_set_rate_plan(merchant=m, rate_plan='production')\n"
            "_, key = services.api_key_rotate(merchant=m)\n"
            "print(json.dumps({'id': m.public_id, 'key': key}))"
        )
    )
    body = json.dumps(
        {
            "merchant_id": merchant["id"],
            "amount": 150_000,
            "currency": "NGN",
            "title": "Bench order",
            "order_reference": "ORDER",
            "customer_email": "shopper@mail.ng",
        }
    )
    preview_body = json.dumps(
        {
            "merchant_id": merchant["id"],
            "amount": 150_000,
            "schedule_type": "monthly",
            "installment_count": 3,
        }
    )
    script = Path(tempfile.mkstemp(suffix=".lua")[1])
    script.write_text(WRK_SCRIPT)
    base_env = {**os.environ, "WRK_API_KEY": merchant["key"], "WRK_BODY": body}
    results: dict = {}
    warm = min(3, seconds)

    def measure(url: str, path: str, extra: dict | None = None, run_body=None) -> dict:
        run_env = {**base_env, "WRK_PATH": path, **(extra or {})}
        if run_body is not None:
            run_env["WRK_BODY"] = run_body
        wrk(url, script, warm, run_env)
        return wrk(url, script, seconds, run_env)

    with gunicorn(env, "bench.baseline.settings") as (proc, url):
        log("API baseline: minimal DRF view (hash lookup, serializer, one insert)")
        baseline = measure(url, "/baseline/sessions")
        results["api.baseline_rss_mb"] = peak_rss_mb(proc.pid)
    with gunicorn(env, "config.settings") as (proc, url):
        probe = subprocess.run(
            [
                "curl",
                "-s",
                "-o",
                "/dev/null",
                "-w",
                "%{http_code}",
                "-X",
                "POST",
                f"{url}/api/v1/checkout/sessions",
            ],
            capture_output=True,
            text=True,
        ).stdout
        if probe == "404":
            log("POST /api/v1/checkout/sessions is not built yet: skipped")
            results["api.note"] = "checkout sessions not built yet"
        else:
            log("API: POST /api/v1/checkout/sessions, fresh Idempotency-Key each")
            create = measure(url, "/api/v1/checkout/sessions")
            log("API: idempotent replay (same key)")
            replay = measure(
                url,
                "/api/v1/checkout/sessions",
                {"WRK_FIXED_KEY": "3f0c7a52-4b7e-4d2c-9a51-0c1e2d3f4a5b"},
            )
            log("API: POST /api/v1/checkout/preview")
            preview = measure(url, "/api/v1/checkout/preview", run_body=preview_body)
            results.update(
                {
                    "api.session_create": create,
                    "api.session_replay": replay,
                    "api.preview": preview,
                }
            )
        results["api.web_worker_rss_mb"] = peak_rss_mb(proc.pid)
    results["api.baseline"] = baseline
    script.unlink()
    return results


def figures(raw: dict) -> dict:
    """The results.json shape: {name: {value, unit, baseline, ratio}}."""
    out = {}
    base = raw.get("api.baseline")
    if base:
        out["api.baseline.rps"] = {
            "value": base["rps"],
            "unit": "requests/s",
            "baseline": None,
            "ratio": None,
        }
        out["api.baseline.p99"] = {
            "value": base["p99_ms"],
            "unit": "ms",
            "baseline": None,
            "ratio": None,
        }
    for name in ("api.session_create", "api.session_replay", "api.preview"):
        if name in raw and base:
            run = raw[name]
            out[f"{name}.rps"] = {
                "value": run["rps"],
                "unit": "requests/s",
                "baseline": base["rps"],
                "ratio": round(run["rps"] / base["rps"], 3),
            }
            out[f"{name}.p50"] = {
                "value": run["p50_ms"],
                "unit": "ms",
                "baseline": base["p50_ms"],
                "ratio": round(run["p50_ms"] / base["p50_ms"], 3),
            }
            out[f"{name}.p99"] = {
                "value": run["p99_ms"],
                "unit": "ms",
                "baseline": base["p99_ms"],
                "ratio": round(run["p99_ms"] / base["p99_ms"], 3),
            }
            out[f"{name}.non_2xx"] = {
                "value": run["non_2xx"],
                "unit": "responses",
                "baseline": base["non_2xx"],
                "ratio": None,
            }
    if "api.web_worker_rss_mb" in raw:
        out["memory.web_worker_peak_rss"] = {
            "value": raw["api.web_worker_rss_mb"],
            "unit": "MB",
            "baseline": raw.get("api.baseline_rss_mb"),
            "ratio": round(raw["api.web_worker_rss_mb"] / raw["api.baseline_rss_mb"], 3)
            if raw.get("api.baseline_rss_mb")
            else None,
        }
    return out


def table(results: dict) -> str:
    lines = [
        "| figure | value | unit | baseline | ratio |",
        "|---|---:|---|---:|---:|",
    ]
    for name, fig in results.items():
        lines.append(
            f"| {name} | {fig['value']} | {fig['unit']} | {fig['baseline']} | "
            f"{fig['ratio'] if fig['ratio'] is not None else '-'} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="a ~2-minute run")
    args = parser.parse_args()
    if not shutil.which("wrk"):
        sys.exit("wrk is missing: `make bench` installs it (apt-get install -y wrk)")
    seconds = 5 if args.quick else 20
    started = time.monotonic()
    notes = []
    with fresh_database() as env:
        raw = api_section(env, seconds)
    if "api.note" in raw:
        notes.append(raw["api.note"])
    results = figures(raw)
    elapsed = round(time.monotonic() - started)
    (BENCH / "results.json").write_text(json.dumps(results, indent=2) + "\n")
    report = "\n".join(
        [
            "# Benchmark results",
            "",
            f"- date: {datetime.now(UTC):%Y-%m-%d %H:%M} UTC",
            f"- machine: {platform.node()}, {os.cpu_count()} cores, "
            f"Python {platform.python_version()}, {platform.platform()}",
            f"- command: `make bench{' BENCH_ARGS=--quick' if args.quick else ''}` "
            f"({elapsed} s)",
            f"- web: gunicorn, {GUNICORN_WORKERS} workers x {GUNICORN_THREADS} threads "
            "(gthread); load: wrk -t2 -c16, "
            f"{seconds} s after a {min(3, seconds)} s warm-up",
            "",
            table(results),
            "",
            *(f"- note: {note}" for note in notes),
            "",
        ]
    )
    (BENCH / "RESULTS.md").write_text(report)
    print(report)


if __name__ == "__main__":
    main()
