"""Rates as an operator writes them in the environment: "10/hour".

Free of Django, so that settings.py refuses a malformed one when the process
starts rather than at the first request that needs it.
"""

PERIODS = {"second": 1, "minute": 60, "hour": 3600, "day": 86400}


def parse_rate(text: str) -> tuple[int, int]:
    """ "<count>/<second|minute|hour|day>" as (count, seconds of the window);
    ValueError for anything else."""
    count, _, period = text.strip().partition("/")
    if not count.isdigit() or int(count) < 1 or period not in PERIODS:
        raise ValueError(
            f"{text!r} is not a rate: write <count>/<period>, a count of 1 or "
            "more and a period of second, minute, hour or day (e.g. 10/hour)."
        )
    return int(count), PERIODS[period]
