"""Engine section: `collect_installments` against two plain-psycopg baselines.

The seeded database is copied with `CREATE DATABASE ... TEMPLATE` for every run,
so each run starts from the same due installments.
"""

import os
import subprocess
import time

import psycopg

from .common import PG, PY, ROOT, Env, log, psql

BASELINE_SQL = """
CREATE TABLE IF NOT EXISTS bench_ledger_line (
    id bigserial primary key, reference text, account text, amount bigint);
CREATE TABLE IF NOT EXISTS bench_charge (
    id bigserial primary key, reference text unique, amount bigint)
"""


def _copy(env: Env, template: str, name: str) -> str:
    psql(f"CREATE DATABASE {name} TEMPLATE {template}")
    psql("CHECKPOINT")  # the copy's writes are not flushed during the next run
    return name


def _drop(name: str) -> None:
    psql(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def _commits(db: str) -> int:
    """The next transaction id: the difference over a run counts the commits that
    wrote something (PostgreSQL assigns an id only to a transaction that writes;
    read-only statements, which `pg_stat_database.xact_commit` would also count,
    cost no WAL flush). Ids are server-wide: nothing else runs during the bench."""
    with psycopg.connect(f"{PG}/{db}", autocommit=True) as conn:
        row = conn.execute(
            "SELECT pg_snapshot_xmax(pg_current_snapshot())::text::bigint"
        ).fetchone()
    return int(row[0])


def _vars(env: Env, db: str, **extra) -> dict:
    return {
        **env.vars,
        "DATABASE_URL": f"{PG}/{db}",
        "DJANGO_SETTINGS_MODULE": "config.settings",
        **extra,
    }


def _collect(env: Env, db: str, processes: int, **extra) -> tuple[float, list]:
    """Runs `collect_installments` in `processes` processes at once; returns the
    wall time and the children's peak RSS."""
    started = time.monotonic()
    procs = [
        subprocess.Popen(
            [PY, "manage.py", "collect_installments"],
            cwd=ROOT,
            env=_vars(env, db, **extra),
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        for _ in range(processes)
    ]
    outs = [proc.communicate()[0] for proc in procs]
    seconds = time.monotonic() - started
    return seconds, [
        out.strip().splitlines()[-1] if out.strip() else "" for out in outs
    ]


def _paid(db: str) -> int:
    with psycopg.connect(f"{PG}/{db}") as conn:
        return conn.execute(
            "SELECT count(*) FROM installments_installment WHERE status = 'paid'"
        ).fetchone()[0]


def _check_ledger(env: Env, db: str) -> int:
    result = subprocess.run(
        [PY, "manage.py", "check_ledger"],
        cwd=ROOT,
        env=_vars(env, db),
        capture_output=True,
        text=True,
    )
    return result.returncode


def baseline(db: str, *, commits_per_installment: int, batch: int = 500) -> float:
    """Plain psycopg: claim 500 due installments (FOR UPDATE SKIP LOCKED), then
    per installment three ledger rows and one status update. With
    `commits_per_installment` 0 the whole batch is one commit (the physical
    bound); otherwise that many commits per installment (the fair baseline)."""
    with psycopg.connect(f"{PG}/{db}") as conn:
        conn.execute(BASELINE_SQL)
        conn.commit()
        started = time.monotonic()
        done = 0
        while True:
            rows = conn.execute(
                "SELECT i.id, i.public_id, i.amount, p.merchant_id, p.customer_id "
                "FROM installments_installment i "
                "JOIN installments_paymentplan p ON p.id = i.plan_id "
                "WHERE i.status IN ('scheduled', 'failed') "
                "AND i.next_attempt_at <= now() AND p.status = 'active' "
                "ORDER BY i.next_attempt_at, i.id LIMIT %s "
                "FOR UPDATE OF i SKIP LOCKED",
                [batch],
            ).fetchall()
            if not rows:
                conn.commit()
                break
            conn.execute(
                "UPDATE installments_installment SET status = 'processing', "
                "attempts = attempts + 1 WHERE id = ANY(%s)",
                [[row[0] for row in rows]],
            )
            conn.commit()
            if not commits_per_installment:
                _batch_written(conn, rows)
                done += len(rows)
                continue
            for pk, public_id, amount, merchant, customer in rows:
                fee = amount // 100
                ref = f"{public_id}_a1"
                # Each commit beyond the recording one writes a charge row, as
                # the processor's record of the attempt does in the engine.
                for n in range(commits_per_installment - 1):
                    conn.execute(
                        "INSERT INTO bench_charge (reference, amount) VALUES (%s, %s)",
                        [f"{ref}_{n}", amount],
                    )
                    conn.commit()
                lines = [
                    (ref, f"customer:{customer}", amount),
                    (ref, f"merchant:{merchant}", -(amount - fee)),
                    (ref, "platform:fees", -fee),
                ]
                with conn.cursor() as cur:
                    cur.executemany(
                        "INSERT INTO bench_ledger_line (reference, account, amount) "
                        "VALUES (%s, %s, %s)",
                        lines,
                    )
                    cur.execute(
                        "UPDATE installments_installment SET status = 'paid', "
                        "paid_at = now(), processor_reference = %s WHERE id = %s",
                        [ref, pk],
                    )
                if commits_per_installment:
                    conn.commit()
            conn.commit()
            done += len(rows)
        return done / (time.monotonic() - started)


def _batch_written(conn, rows) -> None:
    """The physical bound: the same rows, set-based, one commit per batch."""
    refs, accounts, amounts = [], [], []
    for _, public_id, amount, merchant, customer in rows:
        fee = amount // 100
        ref = f"{public_id}_a1"
        refs += [ref] * 3
        accounts += [f"customer:{customer}", f"merchant:{merchant}", "platform:fees"]
        amounts += [amount, -(amount - fee), -fee]
    conn.execute(
        "INSERT INTO bench_ledger_line (reference, account, amount) "
        "SELECT * FROM unnest(%s::text[], %s::text[], %s::bigint[])",
        [refs, accounts, amounts],
    )
    conn.execute(
        "UPDATE installments_installment i SET status = 'paid', paid_at = now(), "
        "processor_reference = u.ref FROM unnest(%s::bigint[], %s::text[]) "
        "AS u(id, ref) WHERE i.id = u.id",
        [[row[0] for row in rows], refs[::3]],
    )
    conn.commit()


def seed_engine(
    env: Env, db: str, installments: int, merchants: int, customers: int
) -> None:
    """Due installments in `db`, analyzed: fresh rows have no planner statistics,
    and without them the claim's join takes seconds per batch (autovacuum would
    analyze them in production)."""
    subprocess.run(
        [PY, "-m", "bench.seed", "engine"]
        + [str(installments), str(merchants), str(customers)],
        cwd=ROOT,
        env=_vars(env, db),
        check=True,
        capture_output=True,
    )
    with psycopg.connect(f"{PG}/{db}", autocommit=True) as conn:
        conn.execute("ANALYZE")


def engine_section(
    env: Env,
    *,
    installments: int,
    merchants: int,
    customers: int,
    latency_budget: int = 20,
):
    raw: dict = {}
    seed = f"{env.db}_engine"
    psql(f"CREATE DATABASE {seed} TEMPLATE {env.db}")
    copies = []
    try:
        log(
            f"engine: seeding {installments} due installments, {merchants} merchants, "
            f"{customers} customers"
        )
        seed_engine(env, seed, installments, merchants, customers)
        # 1 worker process
        one = copies.append(_copy(env, seed, f"{seed}_1")) or copies[-1]
        before = _commits(one)
        log("engine: collect_installments, 1 process")
        seconds, lines = _collect(env, one, 1)
        paid = _paid(one)
        commits = _commits(one) - before
        raw["engine.1_worker"] = paid / seconds
        raw["engine.commits_per_installment"] = round(commits / max(paid, 1), 2)
        raw["engine.check_ledger_exit"] = _check_ledger(env, one)
        raw["engine.lines"] = lines
        # 2 worker processes on a fresh copy
        two = copies.append(_copy(env, seed, f"{seed}_2")) or copies[-1]
        log("engine: collect_installments, 2 processes at once")
        seconds, lines = _collect(env, two, 2)
        raw["engine.2_workers"] = _paid(two) / seconds
        raw["engine.check_ledger_exit_2"] = _check_ledger(env, two)
        # baselines
        per = max(1, round(raw["engine.commits_per_installment"]))
        fair = copies.append(_copy(env, seed, f"{seed}_a")) or copies[-1]
        log(f"engine: fair baseline (a), {per} commit(s) per installment")
        raw["engine.baseline_fair"] = baseline(fair, commits_per_installment=per)
        raw["engine.baseline_fair_commits"] = per
        bound = copies.append(_copy(env, seed, f"{seed}_b")) or copies[-1]
        log("engine: physical bound (b), one commit per batch")
        raw["engine.baseline_bound"] = baseline(bound, commits_per_installment=0)
        # 200 ms processor latency, a fixed time budget
        slow = copies.append(_copy(env, seed, f"{seed}_l")) or copies[-1]
        threads = int(os.environ.get("BENCH_ENGINE_THREADS", "48"))
        log(
            f"engine: 200 ms processor latency, {threads} threads, "
            f"{latency_budget} s budget"
        )
        out = subprocess.run(
            [
                PY,
                "-c",
                "import django; django.setup()\n"
                "from installments.collection import collect_due\n"
                f"s = collect_due(budget_seconds={latency_budget})\n"
                "print(s.claimed / s.seconds)",
            ],
            cwd=ROOT,
            env=_vars(
                env,
                slow,
                SANDBOX_LATENCY_MS="200",
                INSTALLMENT_COLLECTION_THREADS=str(threads),
            ),
            capture_output=True,
            text=True,
            check=True,
        )
        raw["engine.latency_200ms"] = float(out.stdout.strip().splitlines()[-1])
        raw["engine.latency_threads"] = threads
    finally:
        for name in copies:
            _drop(name)
        _drop(seed)
    return raw
