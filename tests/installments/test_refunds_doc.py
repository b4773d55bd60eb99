"""docs/refunds.md's worked example is what happens, kobo for kobo: the
allocation, the fee given back, the wallet's rows, a failed part coming back."""

import json
import re
from pathlib import Path

from rest_framework.test import APIClient

from installments.plans.models import PaymentPlan
from installments.refunds.models import Refund, RefundPart
from installments.refunds.serializers import refund_output
from installments.refunds.services import refund_create
from payments.gateway.processors.sandbox.values import CARD_REFUNDS_FAIL
from payments.ledger.fees import platform_fee

from .conftest import check_ledger, collect, event_data, installments_of, refund
from .refund_figures import fees, wallet
from .refund_plans import dispatch, plan_paid_with

DOC = Path(__file__).resolve().parents[2] / "docs" / "refunds.md"


def wallet_rows(setup) -> list[tuple]:
    """(type, amount, fee, net, reference) of the wallet's transactions, newest
    first, as the wallet endpoint shows them."""
    answer = APIClient().get(
        f"/api/v1/merchant/{setup.owner.merchant.public_id}/wallet",
        **setup.owner.headers,
    )
    return [
        (t["type"], t["amount"], t["fee"], t["net"], t["reference"])
        for t in answer.json()["data"]["transactions"]
    ]


def test_the_worked_example_of_the_refunds_doc_is_what_happens(plan_active):
    text = " ".join(DOC.read_text().split())  # line breaks as spaces
    first = installments_of(plan_active.plan)[0]
    collect(first.due_date)
    first.refresh_from_db()
    deposit = f"{plan_active.plan.public_id}_d1"
    assert (wallet(plan_active), fees()) == (130_001, 3_333)

    data = refund(plan_active, 200_000).json()["data"]

    assert (data["amount_reduced"], data["amount_returned"], data["status"]) == (
        116_666,
        83_334,
        "pending",
    )
    assert [(p["collection_reference"], p["amount"]) for p in data["parts"]] == [
        (first.processor_reference, 58_334),
        (deposit, 25_000),
    ]
    plan = PaymentPlan.objects.get(pk=plan_active.plan.pk)
    assert plan.status == "cancelled"
    assert [row.status for row in installments_of(plan)] == [
        "paid",
        "cancelled",
        "cancelled",
    ]
    assert wallet_rows(plan_active)[:2] == [
        ("refund", -25_000, -625, -24_375, deposit),
        ("refund", -58_334, -1_458, -56_876, first.processor_reference),
    ]
    assert (wallet(plan_active), fees()) == (48_750, 1_250)
    merchant = plan_active.owner.merchant
    assert len(event_data(merchant, "refund.created")) == 1
    assert len(event_data(merchant, "payment_plan.cancelled")) == 1
    # Had the 130,001 been paid out, the wallet would be at -81,251.
    assert 48_750 - 130_001 == -81_251

    one, two = RefundPart.objects.filter(refund__public_id=data["id"])
    dispatch(two, "failed")
    dispatch(one, "processed")

    assert wallet_rows(plan_active)[0] == (
        "refund_returned",
        25_000,
        625,
        24_375,
        deposit,
    )
    plan.refresh_from_db()
    assert plan.amount_refunded == 175_000
    failed = Refund.objects.get(public_id=data["id"])
    assert (failed.status, failed.amount, failed.amount_failed) == (
        "failed",
        175_000,
        25_000,
    )
    assert (
        "at most 75000 kobo now"
        in (refund(plan_active, 75_001).json()["error"]["message"])
    )
    assert [e["status"] for e in event_data(merchant, "refund.failed")] == ["failed"]
    # The rounding of small refunds.
    assert platform_fee(74_980) == platform_fee(75_000) == 1_875
    assert platform_fee(74_960) == 1_874
    check_ledger()

    for figure in (
        "73,125 + 56,876 = 130,001",
        "1,875 + 1,458 = 3,333",
        "| 58,333 → 0 |",
        "| part 1, against `inst_…_a1` | 58,334 |",
        "| part 2, against `plan_…_d1` | 25,000 |",
        "`amount_reduced` 116,666, `amount_returned` 83,334",
        "part 1 takes 56,876 from your wallet and gives back its whole fee, 1,458",
        "part 2 takes 24,375 and gives back 625",
        "1,875 − 1,250",
        "wallet keeps 48,750 of the plan and the platform 1,250",
        "24,375 to your wallet and 625 to the fee",
        "`failed` with `amount` 175,000 and `amount_failed` 25,000",
        "`amount_refunded` would be 175,000, and 75,000",
        "−81,251",
        "`fee(74,980)` is still 1,875",
        "`fee(74,960)` = 1,874",
    ):
        assert figure in text, figure


# --- "A failed refund, worked": every figure the doc states, read from it ------


def _kobo(cell: str) -> int:
    return int(cell.replace(",", ""))


def failed_example() -> tuple[int, dict[str, dict[str, int]], str]:
    """The refund asked for, the table's rows (moment -> field -> kobo) and the
    section's text, read from docs/refunds.md."""
    section = DOC.read_text().split("### A failed refund, worked")[1]
    section = section.split("\n## ")[0]
    [asked] = re.findall(r"You refund \*\*([\d,]+)\*\*", section)
    lines = [line for line in section.splitlines() if line.startswith("|")]
    header = [cell.strip() for cell in lines[0].strip("|").split("|")]
    fields = [cell.replace("`", "") for cell in header[1:]]
    rows = {}
    for line in lines[2:]:
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        rows[cells[0].split(":")[0]] = dict(
            zip(fields, map(_kobo, cells[1:]), strict=True)
        )
    return _kobo(asked), rows, " ".join(section.split())


def camel(field: str) -> str:
    head, *rest = field.split("_")
    return head + "".join(word.title() for word in rest)


def refund_figures(row: dict[str, int], *, events: bool) -> dict[str, int]:
    figures = {k: v for k, v in row.items() if not k.startswith("plan ")}
    return {camel(k): v for k, v in figures.items()} if events else figures


def plan_figures(row: dict[str, int], *, events: bool) -> dict[str, int]:
    figures = {k[5:]: v for k, v in row.items() if k.startswith("plan ")}
    return {camel(k): v for k, v in figures.items()} if events else figures


def test_the_failed_refund_of_the_refunds_doc_is_what_every_figure_says(db):
    asked, rows, text = failed_example()
    made, failed = rows["made"], rows["the part failed"]
    setup = plan_paid_with(CARD_REFUNDS_FAIL)
    first = installments_of(setup.plan)[0]
    collect(first.due_date)
    first.refresh_from_db()
    wallet_before = wallet(setup)

    answer = refund_create(plan=setup.plan, amount=asked, reason="Returned")

    data = refund_output(answer.refund)
    assert data["status"] == "failed"
    assert {k: data[k] for k in refund_figures(failed, events=False)} == (
        refund_figures(failed, events=False)
    )
    [part] = data["parts"]
    assert (part["collection_reference"], part["amount"], part["status"]) == (
        first.processor_reference,
        failed["amount_failed"],
        "failed",
    )
    merchant = setup.owner.merchant
    [created] = event_data(merchant, "refund.created")
    [cancelled] = event_data(merchant, "payment_plan.cancelled")
    [failed_event] = event_data(merchant, "refund.failed")
    assert event_data(merchant, "refund.processed") == []
    assert (created["status"], failed_event["status"]) == ("pending", "failed")
    made_refund = refund_figures(made, events=True)
    assert {k: created[k] for k in made_refund} == made_refund
    made_plan = plan_figures(made, events=True)
    assert {k: cancelled[k] for k in made_plan} == made_plan
    failed_refund = refund_figures(failed, events=True)
    assert {k: failed_event[k] for k in failed_refund} == failed_refund

    plan = APIClient().get(setup.url, **setup.owner.headers).json()["data"]
    failed_plan = plan_figures(failed, events=False)
    assert {k: plan[k] for k in failed_plan} == failed_plan
    assert plan["status"] == "cancelled"
    assert [row["status"] for row in plan["installments"]] == [
        "paid",
        "cancelled",
        "cancelled",
    ]
    assert plan["refunds"] == [data]
    # What failed is refundable again; the reductions stay.
    [again] = re.findall(r"and ([\d,]+) can be refunded again", text)
    message = refund(setup, _kobo(again) + 1).json()["error"]["message"]
    assert f"at most {_kobo(again)} kobo now" in message
    # The part's money left the wallet and came straight back.
    [net, fee] = re.findall(r"\(([\d,]+) from your wallet, ([\d,]+) of fee", text)[0]
    assert platform_fee(58_334) - platform_fee(25_000) == _kobo(fee)
    reference = first.processor_reference
    amount = failed["amount_failed"]
    assert wallet_rows(setup)[:2] == [
        ("refund_returned", amount, _kobo(fee), _kobo(net), reference),
        ("refund", -amount, -_kobo(fee), -_kobo(net), reference),
    ]
    assert wallet(setup) == wallet_before
    check_ledger()


def webhook_example(heading: str) -> dict:
    doc = (DOC.parent / "webhooks.md").read_text()
    [example] = re.findall(
        rf"### {re.escape(heading)}\n\n```json\n(.*?)\n```", doc, re.S
    )
    return json.loads(example)


def test_the_webhooks_doc_shows_every_field_of_the_refund_and_cancelled_events(
    plan_active,
):
    collect(installments_of(plan_active.plan)[0].due_date)
    refund(plan_active, 200_000)
    merchant = plan_active.owner.merchant
    [created] = event_data(merchant, "refund.created")
    [cancelled] = event_data(merchant, "payment_plan.cancelled")

    example = webhook_example(
        "`refund.created`, `refund.processed` and `refund.failed`"
    )
    assert set(example) == set(created)
    # The example is the worked refund of docs/refunds.md, as it is made.
    assert {k: example[k] for k in example if k.startswith("amount")} == {
        k: created[k] for k in created if k.startswith("amount")
    }
    assert set(webhook_example("`payment_plan.cancelled`")) == set(cancelled)
