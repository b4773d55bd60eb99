"""Wallet section: endpoint 9 and the payout run's balance read for merchants
with 1,000, 100,000 and 1,000,000 wallet lines (issue 19).

All three merchants are seeded first (bench/wallet_seed.py: COPY), then the
ledger checkpoint runs and each gets 200 lines since it, so every read runs
against the same database and adds the same lines since. Endpoint 9 is served
by gunicorn as in the API section and loaded with wrk (three rounds through the
sizes, the median of each); the payout run's read (`wallet_available_balance`,
what `payout_create` reads under the merchant's lock) is timed in one process,
and beside it the sum over the whole history that the reads did before the kept
balances.
"""

import json
import os
import subprocess
import tempfile
from pathlib import Path

from .api import wrk
from .common import PY, ROOT, Env, gunicorn, log, psql_db

SIZES = (1_000, 100_000, 1_000_000)
ROUNDS = 3

GET_SCRIPT = """
request = function()
  local headers = {["Authorization"] = "Bearer " .. os.getenv("WRK_API_KEY")}
  return wrk.format("GET", os.getenv("WRK_PATH"), headers)
end
"""

# Times the payout run's balance read and the former full sum (microseconds).
TIMING = """
import json, time
from django.db import connection
from merchants.models import Merchant
from payments.ledger.models import wallet_account
from payments.ledger.selectors import wallet_available_balance

def timed(call, count):
    call()
    spent = []
    for _ in range(count):
        started = time.perf_counter()
        call()
        spent.append((time.perf_counter() - started) * 1000)
    spent.sort()
    return {"p50_ms": round(spent[len(spent) // 2], 3),
            "p99_ms": round(spent[int(len(spent) * 0.99) - 1], 3)}

def full_sum():
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT SUM(amount) FROM payments_ledgerline WHERE account = %s",
            [wallet_account(m.public_id)])

m = Merchant.objects.get(public_id=MERCHANT)
print(json.dumps({"read": timed(lambda: wallet_available_balance(m), 2000),
                  "full_sum": timed(full_sum, 5)}))
"""


def _seed(env: Env, *args: str) -> dict:
    out = subprocess.run(
        [PY, "-m", "bench.wallet_seed", *args],
        cwd=ROOT,
        env={**env.vars, "DJANGO_SETTINGS_MODULE": "config.settings"},
        check=True,
        capture_output=True,
        text=True,
    )
    lines = out.stdout.strip().splitlines()
    return json.loads(lines[-1]) if lines else {}


def wallet_section(env: Env, seconds: int) -> dict:
    merchants = {}
    for lines in SIZES:
        log(f"wallet: seeding a merchant with {lines} wallet lines (COPY)")
        merchants[lines] = _seed(env, str(lines))
    log("wallet: the ledger checkpoint, then 200 lines since it for each merchant")
    _seed(env, "since", *(str(merchant["pk"]) for merchant in merchants.values()))
    psql_db(env, "VACUUM ANALYZE")
    script = Path(tempfile.mkstemp(suffix=".lua")[1])
    script.write_text(GET_SCRIPT)
    raw: dict = {}
    warm = 3
    runs: dict = {lines: [] for lines in SIZES}
    with gunicorn(env, "config.settings") as (_, url):
        # Rounds through the sizes, so that a busy moment of a shared machine
        # does not fall on one size only; each figure is the rounds' median.
        for number in range(ROUNDS):
            for lines, merchant in merchants.items():
                run_env = {
                    **os.environ,
                    "WRK_API_KEY": merchant["key"],
                    "WRK_PATH": f"/api/v1/merchant/{merchant['id']}/wallet",
                }
                log(f"wallet: GET endpoint 9, {lines} lines, round {number + 1}")
                wrk(url, script, warm, run_env)
                runs[lines].append(wrk(url, script, seconds, run_env))
    for lines, found in runs.items():
        raw[f"wallet.endpoint9.{lines}"] = {
            key: sorted(run[key] for run in found)[len(found) // 2] for key in found[0]
        }
    for lines, merchant in merchants.items():
        log(f"wallet: the payout run's balance read, {lines} lines")
        timing = env.python(TIMING.replace("MERCHANT", repr(merchant["id"])))
        found = json.loads(timing.splitlines()[-1])
        raw[f"wallet.payout_read.{lines}"] = found["read"]
        raw[f"wallet.full_sum.{lines}"] = found["full_sum"]
    script.unlink()
    return raw


def wallet_figures(raw: dict) -> dict:
    """Each size's p50/p99 beside the 1,000-line merchant's (the ratio the
    issue bounds at 1.5x for the p99)."""
    if "wallet.endpoint9.1000" not in raw:
        return {}
    out = {}
    small = raw["wallet.endpoint9.1000"]
    small_read = raw["wallet.payout_read.1000"]
    for lines in SIZES:
        run = raw[f"wallet.endpoint9.{lines}"]
        out[f"wallet.endpoint9.{lines}.rps"] = _fig(run["rps"], "requests/s")
        for key in ("p50_ms", "p99_ms"):
            out[f"wallet.endpoint9.{lines}.{key[:3]}"] = _fig(
                run[key], "ms", small[key]
            )
        out[f"wallet.endpoint9.{lines}.non_2xx"] = _fig(run["non_2xx"], "responses")
        read = raw[f"wallet.payout_read.{lines}"]
        for key in ("p50_ms", "p99_ms"):
            out[f"wallet.payout_read.{lines}.{key[:3]}"] = _fig(
                read[key], "ms", small_read[key]
            )
        out[f"wallet.full_sum_before.{lines}.p50"] = _fig(
            raw[f"wallet.full_sum.{lines}"]["p50_ms"], "ms (the former read)"
        )
    return out


def _fig(value, unit, baseline=None) -> dict:
    ratio = round(value / baseline, 3) if baseline else None
    return {"value": value, "unit": unit, "baseline": baseline, "ratio": ratio}
