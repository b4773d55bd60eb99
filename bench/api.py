"""API section: session create, replay and preview against the minimal DRF view."""

import json
import os
import re
import subprocess
import tempfile
from pathlib import Path

from .common import Env, gunicorn, log, peak_rss_mb

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


# An approved merchant with API access and a key (printed as JSON).
MERCHANT = (
    "import json\n"
    "from merchants import services\n"
    "m = services.merchant_create(email='bench@shop.ng', "
    "password='Bench-Passw0rd-42', business_name='Bench', "
    "business_url='https://bench.ng')\n"
    "m = services.merchant_approve(merchant=m)\n"
    "m = services.merchant_set_api_access(merchant=m, enabled=True)\n"
    "m = services.merchant_set_rate_plan(merchant=m, rate_plan='production')\n"
    "_, key = services.api_key_rotate(merchant=m)\n"
    "print(json.dumps({'id': m.public_id, 'key': key}))"
)


def body(merchant: dict) -> str:
    """A session body; wrk puts a fresh order reference in place of ORDER."""
    return json.dumps(
        {
            "merchant_id": merchant["id"],
            "amount": 150_000,
            "currency": "NGN",
            "title": "Bench order",
            "order_reference": "ORDER",
            "customer_email": "shopper@mail.ng",
        }
    )


def preview_body(merchant: dict) -> str:
    return json.dumps(
        {
            "merchant_id": merchant["id"],
            "amount": 150_000,
            "schedule_type": "monthly",
            "installment_count": 3,
        }
    )


def api_section(env: Env, seconds: int) -> dict:
    merchant = json.loads(env.python(MERCHANT))
    session_body, preview_json = body(merchant), preview_body(merchant)
    script = Path(tempfile.mkstemp(suffix=".lua")[1])
    script.write_text(WRK_SCRIPT)
    base_env = {**os.environ, "WRK_API_KEY": merchant["key"], "WRK_BODY": session_body}
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
            preview = measure(url, "/api/v1/checkout/preview", run_body=preview_json)
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
