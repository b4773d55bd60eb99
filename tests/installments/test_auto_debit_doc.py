"""docs/auto-debit.md states the engine's rules; keep it true."""

import re
from pathlib import Path

from installments.collection import LEASE, MAX_ATTEMPTS, RETRY_DAYS, attempt_reference
from installments.collection.retries import RETRY_TIME
from installments.deposits.services import FAILURE_REASONS
from installments.tasks import PASS_BUDGET_SECONDS
from payments.ledger.fees import platform_fee

DOC = (Path(__file__).resolve().parents[2] / "docs" / "auto-debit.md").read_text()


def test_the_retry_table_is_the_engines():
    rows = re.findall(r"^\| (\d) \| due date \+ (\d) days?, (\d\d:\d\d) \|$", DOC, re.M)
    assert [int(days) for _, days, _ in rows] == list(RETRY_DAYS)
    assert {when for _, _, when in rows} == {RETRY_TIME.strftime("%H:%M")}
    assert len(rows) + 1 == MAX_ATTEMPTS
    assert f"After the **{MAX_ATTEMPTS}th** failed attempt" in DOC


def test_the_reasons_are_the_closed_list():
    documented = set(re.findall(r"^\| `([a-z_]+)` \| ", DOC, re.M))
    assert documented >= FAILURE_REASONS


def test_the_fee_example_is_the_fee_rule():
    assert platform_fee(58_334) == 1_458
    assert "fee 1,458, your wallet +56,876" in DOC


def test_the_references_and_timings_are_the_engines():
    assert attempt_reference("inst_x", 1) == "inst_x_a1"
    assert attempt_reference("inst_x", 1, 2) == "inst_x_a1m2"
    assert "`<installment id>_a<n>m<k>`" in DOC
    assert LEASE.total_seconds() == 600 and "10-minute lease" in DOC
    assert f"stops claiming after {PASS_BUDGET_SECONDS} s" in DOC
