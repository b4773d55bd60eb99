"""docs/wallet.md shows the fee rule and the payloads as the code computes them."""

import json
import re
from pathlib import Path

from payments.ledger.fees import platform_fee
from payments.models import Payout
from payments.payouts.services.payouts import MINIMUM_PAYOUT, transfer_success_data

DOC = Path(__file__).resolve().parents[2] / "docs" / "wallet.md"


def test_the_fee_examples_are_what_the_fee_rule_computes():
    text = DOC.read_text()
    examples = re.findall(r"([\d,]+) → fee ([\d,]+),\s+net\s+([\d,]+)", text)
    examples += [
        (amount, fee, None)
        for amount, fee in re.findall(r"; (\d+) → fee (\d+)\.", text)
    ]

    assert len(examples) == 3
    for amount, fee, net in examples:
        amount, fee = int(amount.replace(",", "")), int(fee.replace(",", ""))
        assert platform_fee(amount) == fee
        if net:
            assert amount - fee == int(net.replace(",", ""))


def test_the_wallet_example_adds_up_and_rows_satisfy_net_is_amount_minus_fee():
    [example] = [
        json.loads(block)
        for block in re.findall(r"```json\n(.*?)```", DOC.read_text(), re.S)
        if '"transactions"' in block
    ]
    for row in example["data"]["transactions"]:
        assert row["net"] == row["amount"] - row["fee"]
        if row["type"] == "collection":
            assert row["fee"] == platform_fee(row["amount"])


def test_the_transfer_success_example_has_the_payload_keys():
    [example] = [
        json.loads(block)
        for block in re.findall(r"```json\n(.*?)```", DOC.read_text(), re.S)
        if '"resourceType": "payout"' in block
    ]
    payout = Payout(
        public_id=example["resourceId"],
        amount=example["amount"],
        bank_code=example["bankCode"],
        account_number="012345" + example["accountLast4"],
    )

    assert transfer_success_data(payout) == example
    assert re.fullmatch(r"po_[0-9a-z]{25}", example["resourceId"])


def test_the_minimum_payout_is_the_documented_one():
    text = " ".join(DOC.read_text().split())
    assert f"at least {MINIMUM_PAYOUT:,} kobo" in text
