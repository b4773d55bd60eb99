"""Choosing a plan on the hosted checkout: what the customer may choose (schedules
and installment counts within the merchant's rules and their score tier, a
monthly plan's preferred day), the choice read from the request, and the
resulting terms for display."""

from dataclasses import dataclass

from config.api.errors import DomainError
from config.money import format_kobo
from installments.plans import rules

from . import selectors

DEFAULT_INSTALLMENT_COUNT = 3
SCHEDULE_LABELS = {
    "monthly": "Monthly",
    "biweekly": "Every two weeks",
    "weekly": "Weekly",
}


def short_date(day) -> str:
    """`29 Dec 2026`: a due date as the checkout writes it."""
    return day.strftime("%-d %b %Y")


def ordinal(day: int) -> str:
    """1st, 2nd, 3rd, 4th ... 11th ... 21st, 22nd ... 28th."""
    suffix = "th" if 11 <= day <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(day % 10)
    return f"{day}{suffix or 'th'}"


# The payday field: "" keeps the deposit's day of the month.
PREFERRED_DAY_OPTIONS = [
    ("", "Same day of the month as today"),
    *((str(day), f"The {ordinal(day)}") for day in rules.PREFERRED_DAYS),
    (rules.LAST_WORKING_DAY, "The last working day"),
]


@dataclass(frozen=True)
class Choice:
    schedule: str
    count: int | None
    preferred_day: rules.PreferredDay = None


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


def preferred_day_choice(value: str | None, schedule: str) -> rules.PreferredDay:
    """The payday field's value as the rules take it ("" is none; what is not a
    number is passed on for the rules to refuse). Only monthly plans have one:
    for the others the field is hidden and ignored."""
    if schedule != rules.MONTHLY or not value:
        return None
    number = int_or_none(value)
    return value[:32] if number is None else number


def plan_choice(request, options) -> Choice:
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
    preferred_day = preferred_day_choice(data.get("preferred_day"), schedule)
    return Choice(schedule, count, preferred_day)


def plan_terms(session, customer, choice: Choice):
    """(terms, None) or (None, the reason no plan can be shown). The due dates
    are the ones completing the checkout today gives."""
    if choice.count is None:
        return None, "No installment plan is available."
    try:
        terms = selectors.plan_preview(
            merchant=session.merchant,
            score=customer.score,
            amount=session.amount,
            schedule_type=choice.schedule,
            installment_count=choice.count,
            preferred_day=choice.preferred_day,
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
                "due": short_date(day),
            }
            for amount, day in zip(
                terms.installment_amounts, terms.due_dates, strict=True
            )
        ],
    }
