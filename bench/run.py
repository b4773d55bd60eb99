"""`make bench`: each figure measured beside its baseline in the same run.

Runs against the machine's PostgreSQL on a fresh database, prints a table and writes
bench/results.json and bench/RESULTS.md. Nothing here is a pass/fail test.

    python -m bench.run [--quick] [--only api,webhooks,engine,wallet,workers]

A run of some of the sections (`--only wallet`, as `make bench BENCH_ARGS="--only
wallet"`) replaces those sections' figures and keeps the others of the run
before, and says so in RESULTS.md.
"""

import argparse
import json
import os
import platform
import shutil
import sys
import time
from datetime import UTC, datetime

from .api import api_section
from .common import BENCH, GUNICORN_THREADS, GUNICORN_WORKERS, fresh_database, psql
from .engine import engine_section
from .wallet import wallet_figures, wallet_section
from .webhooks import webhooks_section
from .workers import workers_figures, workers_note, workers_section

SECTIONS = ("api", "webhooks", "engine", "wallet", "workers")
# The figures' names of each section (memory.* follow the api and webhooks runs).
_PREFIXES = {
    "api": ("api.", "memory.web_worker"),
    "webhooks": ("webhooks.", "memory.qcluster"),
    "engine": ("engine.",),
    "wallet": ("wallet.",),
    "workers": ("workers.",),
}
# (figure, key in the run, unit) of each API figure measured beside the baseline.
_API_FIGURES = (
    ("rps", "rps", "requests/s"),
    ("p50", "p50_ms", "ms"),
    ("p99", "p99_ms", "ms"),
)


def _figure(value, unit, baseline=None, ratio=None) -> dict:
    return {"value": value, "unit": unit, "baseline": baseline, "ratio": ratio}


def _ratio(value, baseline) -> float:
    return round(value / baseline, 3)


def figures(raw: dict) -> dict:
    """The results.json shape: {name: {value, unit, baseline, ratio}}."""
    out = {}
    base = raw.get("api.baseline")
    if base:
        out["api.baseline.rps"] = _figure(base["rps"], "requests/s")
        out["api.baseline.p99"] = _figure(base["p99_ms"], "ms")
    for name in ("api.session_create", "api.session_replay", "api.preview"):
        if name in raw and base:
            run = raw[name]
            for figure, key, unit in _API_FIGURES:
                out[f"{name}.{figure}"] = _figure(
                    run[key], unit, base[key], _ratio(run[key], base[key])
                )
            out[f"{name}.non_2xx"] = _figure(
                run["non_2xx"], "responses", base["non_2xx"]
            )
    if "api.web_worker_rss_mb" in raw:
        rss, base_rss = raw["api.web_worker_rss_mb"], raw.get("api.baseline_rss_mb")
        out["memory.web_worker_peak_rss"] = _figure(
            rss, "MB", base_rss, _ratio(rss, base_rss) if base_rss else None
        )
    out.update(engine_figures(raw))
    out.update(webhook_figures(raw))
    out.update(wallet_figures(raw))
    out.update(workers_figures(raw))
    return out


def _fig(value, unit, baseline=None, ratio=None) -> dict:
    value = round(value, 1) if isinstance(value, float) else value
    baseline = round(baseline, 1) if isinstance(baseline, float) else baseline
    return _figure(value, unit, baseline, ratio)


def _vs(value, unit, baseline) -> dict:
    """`value` beside `baseline`, with their ratio (both rounded as `_fig`)."""
    return _fig(value, unit, baseline, _ratio(value, baseline))


def engine_figures(raw: dict) -> dict:
    if "engine.1_worker" not in raw:
        return {}
    one, two = raw["engine.1_worker"], raw["engine.2_workers"]
    fair, bound = raw["engine.baseline_fair"], raw["engine.baseline_bound"]
    return {
        "engine.1_worker": _vs(one, "installments/s", fair),
        "engine.1_worker_vs_bound": _vs(one, "installments/s", bound),
        "engine.2_workers": _vs(two, "installments/s", one),
        "engine.2_workers_vs_fair": _vs(two, "installments/s", fair),
        "engine.baseline_fair": _fig(
            fair,
            f"installments/s ({raw['engine.baseline_fair_commits']} commit(s) each)",
        ),
        "engine.baseline_bound": _fig(bound, "installments/s (1 commit per batch)"),
        "engine.commits_per_installment": _fig(
            raw["engine.commits_per_installment"], "commits"
        ),
        "engine.latency_200ms_per_worker": _vs(
            raw["engine.latency_200ms"],
            f"installments/s ({raw['engine.latency_threads']} threads)",
            100,
        ),
        "engine.check_ledger_exit": _fig(
            max(raw["engine.check_ledger_exit"], raw["engine.check_ledger_exit_2"]),
            "exit code (0 = clean)",
        ),
    }


def webhook_figures(raw: dict) -> dict:
    if "webhooks.cluster" not in raw:
        return {}
    run, base = raw["webhooks.cluster"], raw["webhooks.baseline_rate"]
    failing, paced = raw["webhooks.failing"], raw["webhooks.paced"]
    return {
        "webhooks.deliveries": _vs(run["rate"], "deliveries/s", base),
        "webhooks.baseline": _fig(base, "deliveries/s"),
        "webhooks.commit_to_delivery.p50": _fig(
            round(paced["p50"] * 1000), f"ms (at {raw['webhooks.paced_rate']} events/s)"
        ),
        "webhooks.commit_to_delivery.p99": _fig(
            round(paced["p99"] * 1000), f"ms (at {raw['webhooks.paced_rate']} events/s)"
        ),
        "webhooks.paced.delivered": _fig(paced["delivered"], "events", paced["events"]),
        "webhooks.burst_commit_to_delivery.p50": _fig(
            round(run["p50"] * 1000), "ms (all events at once: queueing)"
        ),
        "webhooks.burst_commit_to_delivery.p99": _fig(
            round(run["p99"] * 1000), "ms (all events at once: queueing)"
        ),
        "webhooks.delivered": _fig(run["delivered"], "events", run["events"]),
        "webhooks.500s.delivered": _fig(
            failing["delivered"], "events", failing["events"]
        ),
        "webhooks.500s.listed_in_failed_attempts": _fig(
            failing["failed_listed"], "events", failing["events"]
        ),
        "webhooks.500s.lost": _fig(failing["lost"], "events"),
        "memory.qcluster_peak_rss": _fig(
            max(
                run["qcluster_rss_mb"],
                failing["qcluster_rss_mb"],
                paced["qcluster_rss_mb"],
            ),
            "MB",
        ),
    }


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


def _merged(results: dict, ran: list[str], header: list[str]):
    """This run's figures in place of the same sections' in the last results,
    the others kept; the header of the run they came from kept, with a line
    saying which sections this run measured again."""
    path, report = BENCH / "results.json", BENCH / "RESULTS.md"
    before = json.loads(path.read_text()) if path.exists() else {}
    prefixes = tuple(p for name in ran for p in _PREFIXES[name])
    kept = {k: v for k, v in before.items() if not k.startswith(prefixes)}
    old_header = []
    if report.exists():
        for line in report.read_text().splitlines():
            if line.startswith("| figure"):
                break
            if line.startswith("- "):
                old_header.append(line)
    rerun = (
        f"- {', '.join(ran)} measured again on "
        + header[0].removeprefix("- date: ")
        + " ("
        + "; ".join(line.removeprefix("- ") for line in header[1:])
        + "); the other figures are from the run above"
    )
    return {**kept, **results}, [*(old_header or header[:1]), rerun]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="a ~2-minute run")
    parser.add_argument(
        "--installments",
        type=int,
        default=100_000,
        help="due installments for the engine (full run; --quick uses 5,000)",
    )
    parser.add_argument(
        "--only",
        default=",".join(SECTIONS),
        help="sections to run (comma list)",
    )
    args = parser.parse_args()
    if not shutil.which("wrk"):
        sys.exit("wrk is missing: `make bench` installs it (apt-get install -y wrk)")
    seconds = 5 if args.quick else 20
    started = time.monotonic()
    notes = []
    scale = (
        {
            "installments": 5_000,
            "merchants": 100,
            "customers": 1_000,
            "latency_budget": 10,
        }
        if args.quick
        else {
            "installments": args.installments,
            "merchants": 1_000,
            "customers": max(1, args.installments // 5),
            "latency_budget": 20,
        }
    )
    events = 2_000 if args.quick else 10_000
    with fresh_database() as env:
        raw = {}
        # Lightest first; a CHECKPOINT before each section so that one section's
        # writes are not flushed during the next one's measurement.
        if "api" in args.only:
            psql("CHECKPOINT")
            raw.update(api_section(env, seconds))
        if "webhooks" in args.only:
            psql("CHECKPOINT")
            raw.update(
                webhooks_section(
                    env, events=events, paced_seconds=5 if args.quick else 20
                )
            )
        if "engine" in args.only:
            psql("CHECKPOINT")
            raw.update(engine_section(env, **scale))
        if "wallet" in args.only:
            psql("CHECKPOINT")
            raw.update(wallet_section(env, seconds))
        if "workers" in args.only:
            psql("CHECKPOINT")
            raw.update(workers_section(env, seconds))
    if "api.note" in raw:
        notes.append(raw["api.note"])
    if "workers.config" in raw:
        notes.append(workers_note(raw))
    results = figures(raw)
    elapsed = round(time.monotonic() - started)
    ran = [name for name in SECTIONS if name in args.only]
    bench_args = " ".join(sys.argv[1:])
    command = f"make bench BENCH_ARGS='{bench_args}'" if bench_args else "make bench"
    header = [
        f"- date: {datetime.now(UTC):%Y-%m-%d %H:%M} UTC",
        f"- machine: {platform.node()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}, {platform.platform()}",
        f"- command: `{command}` ({elapsed} s)",
        f"- web: gunicorn, {GUNICORN_WORKERS} workers x {GUNICORN_THREADS} threads "
        "(gthread); load: wrk -t2 -c16, "
        f"{seconds} s after a {min(3, seconds)} s warm-up",
        f"- engine: {scale['installments']} installments, {scale['merchants']} "
        f"merchants, {scale['customers']} customers; webhooks: {events} events",
        f"- load average at the end: {os.getloadavg()}",
    ]
    if len(ran) < len(SECTIONS):
        results, header = _merged(results, ran, header)
    (BENCH / "results.json").write_text(json.dumps(results, indent=2) + "\n")
    report = "\n".join(
        [
            "# Benchmark results",
            "",
            *header,
            "",
            table(results),
            "",
            *(f"- note: {note}" for note in notes),
            "",
            # The reading of these figures (profile, recommendation), written by
            # hand and read at the end of the run.
            (BENCH / "analysis.md").read_text()
            if (BENCH / "analysis.md").exists()
            else "",
        ]
    )
    (BENCH / "RESULTS.md").write_text(report)
    print(report)


if __name__ == "__main__":
    main()
