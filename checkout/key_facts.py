"""The key facts box of the hosted checkout (DESIGN section 18): the figures
of `installments.agreements.facts`, the one source, made readable. Amounts go
through the one money formatter; what the merchant typed stays data (the
template escapes it; the refund policy is kept to one line here)."""

from datetime import date

from config.api.errors import DomainError
from config.money import format_kobo
from config.text import one_line
from installments.agreements.facts import key_facts
from merchants.models import REFUND_POLICY_MAX_LENGTH

from . import selectors
from .plan_choice import SCHEDULE_LABELS, short_date


def session_key_facts(session, terms) -> dict:
    """The key facts of the plan `terms` makes for this session (JSON)."""
    return key_facts(merchant=session.merchant, terms=terms, currency=session.currency)


def key_facts_display(facts: dict) -> dict:
    """`facts` with every amount formatted and every date written out."""
    currency = facts["currency"]

    def money(amount: int) -> str:
        return format_kobo(amount, currency)

    return {
        **facts,
        "schedule": SCHEDULE_LABELS[facts["schedule_type"]].lower(),
        "cash_price_display": money(facts["cash_price"]),
        "deposit_display": money(facts["deposit"]),
        "installments": [
            {
                **row,
                "display": money(row["amount"]),
                "due": short_date(date.fromisoformat(row["due_date"])),
            }
            for row in facts["installments"]
        ],
        "total_payable_display": money(facts["total_payable"]),
        "total_cost_of_credit_display": money(facts["total_cost_of_credit"]),
        "cancellation_and_refunds": one_line(
            facts["cancellation_and_refunds"], REFUND_POLICY_MAX_LENGTH
        ),
    }


def pending_plan_key_facts(session, plan) -> dict | None:
    """The key facts of a plan whose deposit is being paid by transfer or USSD
    (its due dates are made when the deposit arrives: shown as paying today
    makes them), or None when its terms no longer hold."""
    try:
        terms = selectors.plan_preview(
            merchant=session.merchant,
            score=plan.customer_score,
            amount=plan.total_amount,
            schedule_type=plan.schedule_type,
            installment_count=plan.installment_count,
            preferred_day=plan.payday,
        )
    except DomainError:
        return None
    return key_facts_display(session_key_facts(session, terms))
