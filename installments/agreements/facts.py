"""The key facts of a plan (DESIGN section 18): the one source of the figures
the checkout's box shows, `GET .../key-facts` answers, the agreement record
keeps and its PDF prints.

Two doors, one shape: `key_facts` from the terms a customer is choosing (the
checkout, before a plan exists) and `plan_key_facts` from a plan that has its
installments (the agreement, made when the deposit is paid). Both build the
same dict through `_facts`, so the box and the record cannot differ in
anything but the figures themselves. Amounts are integers in kobo, dates ISO
strings: JSON as it is stored, and compared to the plan to the kobo.
"""

from collections.abc import Sequence
from datetime import date

from ..collection.retries import RETRY_DAYS
from ..plans.rules import PlanTerms

# The text of the facts, their version: a change of wording or of what the
# box holds is a new version, kept on every agreement made under it.
VERSION = "2026-11-1"

FAILED_PAYMENT_TEXT = (
    "If an installment cannot be collected on its due date we try again {days} "
    "days after it. You can pay it yourself at any time from the link in our "
    "message. If the last try fails the plan is in default and the merchant is "
    "told. There are no late fees and no interest."
)
COMPLAINTS_TEXT = (
    "Contact the merchant first, at the e-mail address or phone number above. "
    "If they do not resolve it, you can complain to the Federal Competition and "
    "Consumer Protection Commission (FCCPC)."
)
NO_REFUND_POLICY_TEXT = (
    "The merchant has not given a refund policy; ask them before you pay. You "
    "can cancel a plan by asking the merchant: what you paid for goods you "
    "return is refunded to you."
)


def _merchant(merchant) -> dict:
    return {
        "name": merchant.legal_name or merchant.business_name,
        "trading_name": merchant.business_name,
        "support_email": merchant.support_email or merchant.email,
        "support_phone": merchant.support_phone,
        "fccpc_registration_number": merchant.fccpc_registration_number,
    }


def _facts(
    *,
    merchant,
    currency: str,
    cash_price: int,
    deposit: int,
    schedule_type: str,
    installments: Sequence[tuple[int, date]],
) -> dict:
    total_payable = deposit + sum(amount for amount, _ in installments)
    return {
        "version": VERSION,
        "merchant": _merchant(merchant),
        "currency": currency,
        "cash_price": cash_price,
        "deposit": deposit,
        "schedule_type": schedule_type,
        "installments": [
            {"sequence": sequence, "amount": amount, "due_date": due.isoformat()}
            for sequence, (amount, due) in enumerate(installments, start=1)
        ],
        "total_payable": total_payable,
        "total_cost_of_credit": total_payable - cash_price,
        "fees": 0,
        "failed_payment": {
            "retry_days": list(RETRY_DAYS),
            "late_fees": 0,
            "text": FAILED_PAYMENT_TEXT.format(
                days=", ".join(str(day) for day in RETRY_DAYS[:-1])
                + f" and {RETRY_DAYS[-1]}"
            ),
        },
        "cancellation_and_refunds": merchant.refund_policy or NO_REFUND_POLICY_TEXT,
        "complaints": COMPLAINTS_TEXT,
    }


def key_facts(*, merchant, terms: PlanTerms, currency: str) -> dict:
    """The key facts of the plan these terms make (before it exists)."""
    return _facts(
        merchant=merchant,
        currency=currency,
        cash_price=terms.total_amount,
        deposit=terms.deposit_amount,
        schedule_type=terms.schedule_type,
        installments=list(zip(terms.installment_amounts, terms.due_dates, strict=True)),
    )


def plan_key_facts(plan) -> dict:
    """The key facts of an activated plan: its installments as scheduled, each
    at the amount it was made with (`original_amount`), whatever has happened
    to it since."""
    rows = plan.installments.order_by("sequence")
    return _facts(
        merchant=plan.merchant,
        currency=plan.currency,
        cash_price=plan.total_amount,
        deposit=plan.deposit_amount,
        schedule_type=plan.schedule_type,
        installments=[(row.original_amount, row.due_date) for row in rows],
    )
