"""Each wallet line (endpoint 9) names the processor reference of the charge or
transfer that moved the money and the resource it belongs to, as the events do:
a deposit paid on its second try (`plan_..._d2`), a payout (`po_...`), an
installment paid by the customer's second method (`inst_..._a1m2`)."""

import re
from datetime import timedelta
from importlib import import_module
from pathlib import Path

import pytest
from django.apps import apps as django_apps
from django.test import Client
from rest_framework.test import APIClient

from payments.models import LedgerTransaction
from webhooks.models import Event

from ..checkout.conftest import (
    CARD_OK,
    add_card,
)
from ..dashboards import sign_in
from .conftest import check_ledger, collect, installments_of
from .failed_collections import make_default
from .partial_plans import first_three_attempts, last_retry, partial_plan
from .wallet_story import wallet_story

pytestmark = pytest.mark.django_db


def event_data(event_type: str) -> dict:
    [event] = Event.objects.filter(event_type=event_type)
    return event.data


def test_each_wallet_line_names_its_processor_reference_and_resource(committed):
    story = wallet_story(committed)
    plan, payout, first = story.setup.plan, story.payout, story.first

    lines = [
        (row["type"], row["reference"], row["resource_type"], row["resource_id"])
        for row in story.answer["data"]["transactions"]
    ]

    assert lines == [
        ("collection", f"{first.public_id}_a1m2", "installment", first.public_id),
        ("payout", payout.public_id, "payout", payout.public_id),
        ("collection", f"{plan.public_id}_d2", "payment_plan", plan.public_id),
    ]
    # The same references as the events the merchant received for them.
    paid = event_data("installment.paid")
    assert (paid["processorReference"], paid["resourceId"]) == lines[0][1::2]
    transferred = event_data("transfer.success")
    assert (transferred["reference"], transferred["resourceId"]) == lines[1][1::2]
    deposit = event_data("payment.success")
    assert deposit["resourceId"] == lines[2][3]
    assert first.processor_reference == lines[0][1]
    assert plan.deposit_attempts.get(status="succeeded").reference == lines[2][1]
    assert "clean" in check_ledger()


def test_lines_posted_before_the_ledger_named_them_are_backfilled(committed):
    story = wallet_story(committed)
    merchant = story.setup.owner.merchant
    # As on a database from before: the ledger did not name them.
    LedgerTransaction.objects.update(
        processor_reference="", resource_type="", resource_id=""
    )
    payouts = import_module(
        "payments.migrations.0010_ledger_transaction_processor_reference_and_resource"
    ).backfill_payouts
    collections = import_module(
        "installments.migrations.0003_backfill_wallet_line_resources"
    ).backfill_collections

    payouts(django_apps, None)
    collections(django_apps, None)

    again = APIClient().get(
        f"/api/v1/merchant/{merchant.public_id}/wallet", **story.setup.owner.headers
    )
    assert again.json() == story.answer


def test_the_dashboard_wallet_names_each_lines_resource_and_reference_once(
    committed,
):
    """Every line shows what it was for and the processor reference that moved
    the money (issue 25 item 11), each once: a collection's reference
    (`inst_…_a1`) names its installment, a payout's is its own id."""
    story = wallet_story(committed)

    page = sign_in(Client(), story.setup.owner.merchant).get("/dashboard/wallet/")

    table = page.content.decode()
    table = table[table.index('data-testid="transactions"') :]
    table = table[table.index("<tbody>") : table.index("</tbody>")]
    rows = table.split("</tr>")[:-1]
    lines = story.answer["data"]["transactions"]
    assert len(rows) == len(lines) == 3  # the installment, the payout, the deposit
    for row, line in zip(rows, lines, strict=True):
        cell = row.split("<td")[3]
        ids = re.findall(r"\b(?:inst|plan|po|rf)_\w+", cell)
        assert len(ids) == len(set(ids)), cell  # no id twice
        assert line["reference"] in ids, cell
        assert any(line["resource_id"] in shown for shown in ids), cell
    payout_cell = rows[[line["type"] for line in lines].index("payout")]
    assert payout_cell.count(story.payout.public_id) == 1
    assert "Payout to Guaranty Trust Bank ••••" in payout_cell


WALLET_DOC = Path(__file__).resolve().parents[2] / "docs" / "wallet.md"
ID_PART = {"inst_…": r"inst_[0-9A-Za-z]{22}", "plan_…": r"plan_[0-9A-Za-z]{22}"}


def documented_collections() -> list[tuple[re.Pattern, str, str, re.Pattern]]:
    """The table after `<!-- collections -->` in docs/wallet.md: for each kind
    of collection, its references (patterns), resource type and id prefix, and
    its description (a pattern: numbers and the order reference vary)."""
    text = WALLET_DOC.read_text()
    table = text[text.index("<!-- collections -->") :].split("\n\n")[0]
    documented = []
    for line in table.splitlines()[3:]:
        _what, references, resource, description = (
            cell.strip() for cell in line.strip("|").split("|")
        )
        forms = []
        for form in re.findall(r"`([^`]+)`", references):
            pattern = re.escape(form)
            for shown, real in ID_PART.items():
                pattern = pattern.replace(re.escape(shown), real)
            forms.append(re.sub(r"<[nk]>", r"[0-9]+", pattern))
        resource_type, prefix = re.findall(r"`([^`]+)`", resource)
        [described] = re.findall(r"`([^`]+)`", description)
        # Numbers vary (a payoff lists one installment or several), and so
        # does the order reference.
        parts = re.split(r"(ORD-2041|\d+(?:, \d+)*)", described)
        described = "".join(
            re.escape(part)
            if number % 2 == 0
            else r"\S+"
            if part == "ORD-2041"
            else r"[0-9]+(?:, [0-9]+)*"
            for number, part in enumerate(parts)
        )
        documented.append(
            (
                re.compile("|".join(forms)),
                resource_type,
                prefix.removesuffix("…"),
                re.compile(described),
            )
        )
    return documented


def test_every_kind_of_collection_carries_the_documented_reference_and_resource(db):
    """A plan's wallet lines of every kind of collection: the deposit, an
    installment's partial debit and the rest at its last try, one installment
    paid early and a payoff. Each is described by exactly one row of the
    documented table (its reference's form, its resource and its description),
    and every row describes one of them."""
    setup = partial_plan(percent=50)
    plan = setup.plan
    first, second, third = installments_of(plan)
    first_three_attempts(first)
    last_retry(first)  # part of the first
    card = add_card(setup.shopper, CARD_OK)
    make_default(setup, card)
    collect(first.due_date + timedelta(days=14))  # the rest of the first
    early = setup.shopper.post(f"{setup.url}/pay", {"installment_id": second.public_id})
    assert early.status_code == 200, early.content
    payoff = setup.shopper.post(f"{setup.url}/pay", {"payoff": True})
    assert payoff.status_code == 200, payoff.content
    assert payoff.json()["data"]["status"] == "completed"
    answer = (
        APIClient()
        .get(
            f"/api/v1/merchant/{setup.owner.merchant.public_id}/wallet",
            **setup.owner.headers,
        )
        .json()
    )

    documented = documented_collections()
    rows_used = set()
    lines = [r for r in answer["data"]["transactions"] if r["type"] == "collection"]
    for line in lines:
        rows = [
            number
            for number, (reference, resource_type, prefix, description) in enumerate(
                documented
            )
            if reference.fullmatch(line["reference"])
            and line["resource_type"] == resource_type
            and line["resource_id"].startswith(prefix)
            and description.fullmatch(line["description"])
        ]
        assert len(rows) == 1, (line, documented)
        rows_used.update(rows)
    assert rows_used == set(range(len(documented)))
    by_reference = {line["reference"]: line for line in lines}
    assert by_reference[f"{first.public_id}_a4p"]["resource_id"] == first.public_id
    assert by_reference[f"{first.public_id}_a5"]["resource_id"] == first.public_id
    assert by_reference[f"{second.public_id}_p1"]["resource_id"] == second.public_id
    payoff_line = by_reference[f"{plan.public_id}_po1"]
    assert (payoff_line["resource_type"], payoff_line["resource_id"]) == (
        "payment_plan",
        plan.public_id,
    )
    assert payoff_line["amount"] == third.amount
    assert "clean" in check_ledger()
