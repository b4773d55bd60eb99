"""Choosing a plan on the hosted checkout: what the customer may choose (schedules
and installment counts within the merchant's rules and their score tier), the
choice read from the request, and the resulting terms for display."""

from config.api.errors import DomainError
from installments import rules
from installments.templatetags.money import format_kobo

from . import selectors

DEFAULT_INSTALLMENT_COUNT = 3
SCHEDULE_LABELS = {
    "monthly": "Monthly",
    "biweekly": "Every two weeks",
    "weekly": "Weekly",
}


def plan_options(session, customer) -> dict:
    """What this customer may choose for this session: schedules and counts."""
    merchant = session.merchant
    config = rules.PlanConfig.of(merchant)
    schedules = [
        (kind, SCHEDULE_LABELS[kind])
        for kind in config.allowed_schedule_types
        if kind in rules.SCHEDULE_TYPES
    ]
    try:
        tier = rules.tier_for(customer.score)
    except DomainError as error:
        return {"schedules": schedules, "counts": [], "refusal": error.message}
    low, high = rules.installment_bounds(tier, config)
    refusal = (
        ""
        if low <= high
        else "No installment plan is available to your account for this shop."
    )
    return {
        "schedules": schedules,
        "counts": list(range(low, high + 1)),
        "refusal": refusal,
    }


def int_or_none(value) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def plan_choice(request, options) -> tuple[str, int | None]:
    data = request.POST if request.method == "POST" else request.GET
    schedules = [kind for kind, _ in options["schedules"]]
    schedule = data.get("schedule_type")
    if schedule not in schedules:
        schedule = schedules[0] if schedules else ""
    count = int_or_none(data.get("installment_count"))
    counts = options["counts"]
    if count not in counts:
        count = (
            min(max(DEFAULT_INSTALLMENT_COUNT, counts[0]), counts[-1])
            if counts
            else None
        )
    return schedule, count


def plan_terms(session, customer, schedule: str, count: int | None):
    """(terms, None) or (None, the reason no plan can be shown)."""
    if count is None:
        return None, "No installment plan is available."
    try:
        terms = selectors.plan_preview(
            merchant=session.merchant,
            score=customer.score,
            amount=session.amount,
            schedule_type=schedule,
            installment_count=count,
        )
    except DomainError as error:
        return None, error.message
    return terms, None


def preview_display(terms, currency: str) -> dict:
    return {
        "deposit_amount": terms.deposit_amount,
        "deposit": format_kobo(terms.deposit_amount, currency),
        "pay_label": f"Pay {format_kobo(terms.deposit_amount, currency)} now",
        "installments": [
            {
                "amount": amount,
                "display": format_kobo(amount, currency),
                "due_date": day.isoformat(),
                "due": day.strftime("%-d %b %Y"),
            }
            for amount, day in zip(
                terms.installment_amounts, terms.due_dates, strict=True
            )
        ],
    }
