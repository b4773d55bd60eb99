"""docs/wallet.md shows the fee rule and the payloads as the code computes them."""

import json
import re
from pathlib import Path

import pytest

from payments.ledger.fees import platform_fee
from payments.models import Payout
from payments.payouts.services.payouts import MINIMUM_PAYOUT, transfer_success_data

from ..installments.wallet_story import wallet_story

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


def wallet_example() -> dict:
    [example] = [
        json.loads(block)
        for block in re.findall(r"```json\n(.*?)```", DOC.read_text(), re.S)
        if '"transactions"' in block
    ]
    return example


def test_the_wallet_example_adds_up_and_rows_satisfy_net_is_amount_minus_fee():
    example = wallet_example()
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


# Ids are random and times the clock's: the example shows the real answer with
# its own ids (one for one: the same id wherever the answer repeats one) and times.
ID = re.compile(r"\b(?:(?:mer|txn|inst|plan)_[0-9A-Za-z]{22}|po_[0-9a-z]{25})")
TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z")


def _leaves(node, path=()):
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _leaves(value, (*path, key))
    elif isinstance(node, list):
        for position, value in enumerate(node):
            yield from _leaves(value, (*path, position))
    else:
        yield path, node


def _ids_and_times(node) -> tuple[dict, dict]:
    """The answer with every id and time replaced by a placeholder, and the ids
    and times it held, by where they were."""
    ids, times = {}, {}
    for path, value in _leaves(node):
        if isinstance(value, str):
            ids[path] = ID.findall(value)
            if TIME.fullmatch(value):
                times[path] = value

    def blank(value):
        if isinstance(value, dict):
            return {key: blank(item) for key, item in value.items()}
        if isinstance(value, list):
            return [blank(item) for item in value]
        if isinstance(value, str):
            return TIME.sub("<time>", ID.sub("<id>", value))
        return value

    return blank(node), {"ids": ids, "times": times}


@pytest.mark.django_db
def test_the_wallet_example_is_a_real_answer(committed):
    """The example is endpoint 9's answer for the story it tells (a deposit paid
    on a second try, a payout, an installment paid by a second card): the same
    fields in the same order, the same amounts, types, descriptions and forms
    of reference, with ids used the same way."""
    example = wallet_example()
    real = wallet_story(committed).answer

    example_shape, example_values = _ids_and_times(example)
    real_shape, real_values = _ids_and_times(real)

    assert json.dumps(example_shape) == json.dumps(real_shape)  # key order too
    pairs = set()
    for path, found in real_values["ids"].items():
        shown = example_values["ids"][path]
        assert [value[:3] for value in shown] == [value[:3] for value in found]
        pairs.update(zip(shown, found, strict=True))
    # One example id per real id, and the other way round.
    assert len({shown for shown, _ in pairs}) == len(pairs)
    assert len({found for _, found in pairs}) == len(pairs)
    assert example_values["times"].keys() == real_values["times"].keys()
    created = [row["created_at"] for row in example["data"]["transactions"]]
    assert created == sorted(created, reverse=True)  # newest first, as the API
