"""A bar chart drawn on the server as inline SVG: no script, no CDN, readable by
screen readers through its summary and by mouse users through each bar's title."""

from dataclasses import dataclass

from config.money import format_kobo

from .selectors import DayTotal

HEIGHT = 100  # SVG units; the bars are stretched to the page's width by CSS
BAR = 10  # SVG units per day, gap included
GAP = 2


@dataclass(frozen=True)
class Bar:
    x: int
    y: float
    width: int
    height: float
    title: str
    empty: bool


@dataclass(frozen=True)
class Chart:
    bars: list[Bar]
    width: int
    height: int
    top: str  # the amount at the top of the scale
    first_day: str
    middle_day: str
    last_day: str
    total: int
    count: int
    summary: str


def _day(value) -> str:
    return f"{value.day} {value:%b %Y}"


def collections_chart(days: list[DayTotal]) -> Chart:
    peak = max((day.amount for day in days), default=0)
    bars = []
    for index, day in enumerate(days):
        height = round(day.amount / peak * HEIGHT, 2) if peak else 0
        if day.amount and height < 1:
            height = 1  # a small day stays visible next to a large one
        payments = f"{day.count} payment{'s' if day.count != 1 else ''}"
        title = (
            f"{_day(day.day)}: {format_kobo(day.amount)} collected ({payments}), "
            f"{format_kobo(day.net)} to your wallet"
            if day.amount
            else f"{_day(day.day)}: nothing collected"
        )
        bars.append(
            Bar(
                x=index * BAR + GAP // 2,
                y=HEIGHT - height,
                width=BAR - GAP,
                height=height,
                title=title,
                empty=not day.amount,
            )
        )
    total = sum(day.amount for day in days)
    count = sum(day.count for day in days)
    first, last = (days[0].day, days[-1].day) if days else (None, None)
    summary = (
        f"Collections per day from {_day(first)} to {_day(last)}: "
        f"{format_kobo(total)} in {count} payment{'s' if count != 1 else ''}"
        + (f", at most {format_kobo(peak)} in a day." if peak else ".")
        if days
        else "No days to show."
    )
    return Chart(
        bars=bars,
        width=len(days) * BAR,
        height=HEIGHT,
        top=format_kobo(peak),
        first_day=_day(first) if first else "",
        middle_day=_day(days[len(days) // 2].day) if days else "",
        last_day=_day(last) if last else "",
        total=total,
        count=count,
        summary=summary,
    )
