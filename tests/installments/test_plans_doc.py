"""docs/plans.md explains the rules with the issue's worked example; keep it true."""

import json
import re
from datetime import date
from pathlib import Path

from installments.plans import rules

DOC = Path(__file__).resolve().parents[2] / "docs" / "plans.md"


def test_plans_doc_shows_the_issue_example_as_the_rules_compute_it():
    text = DOC.read_text()
    [answer] = re.findall(r"```json\n(.*?)```", text, re.S)

    terms = rules.plan_terms(
        amount=100_001,
        score=rules.NEW_CUSTOMER_SCORE,
        schedule_type="monthly",
        installment_count=3,
        config=rules.PlanConfig(),
        start=date(2026, 1, 31),
    )

    assert json.loads(answer)["data"] == {
        "schedule_type": terms.schedule_type,
        "installment_count": terms.installment_count,
        "deposit_amount": terms.deposit_amount,
        "installment_amounts": list(terms.installment_amounts),
        "due_dates": [day.isoformat() for day in terms.due_dates],
        "total_amount": terms.total_amount,
    }
    for figure in (
        "30,001 kobo",
        "23,334, 23,333, 23,333",
        "2026-02-28, 2026-03-31",  # the calendar dates (DESIGN 6)
        "**2026-03-02, 2026-03-31, 2026-04-30**",  # on working days (DESIGN 15)
    ):
        assert figure in text


def test_plans_doc_payday_example_is_what_the_rules_compute():
    text = DOC.read_text()
    terms = rules.plan_terms(
        amount=100_001,
        score=rules.NEW_CUSTOMER_SCORE,
        schedule_type="monthly",
        installment_count=3,
        config=rules.PlanConfig(),
        start=date(2025, 12, 20),
        preferred_day=25,
    )
    shown = ", ".join(f'"{day.isoformat()}"' for day in terms.due_dates)

    assert '"preferred_day": 25}' in text
    assert f'answers, on 20 December 2025, `"due_dates": [{shown}]`' in " ".join(
        text.split()
    )


def test_plans_doc_tier_table_matches_the_rules():
    text = DOC.read_text()

    for tier in rules.TIERS:
        assert re.search(
            rf"\| {tier.min_score}–\d+ \| {tier.name} \| {tier.deposit_percent}% \| "
            rf"{tier.max_installments} \|",
            text,
        ), tier
