"""Recurring django-q2 jobs, declared in code (DESIGN section 13).

Each app declares its schedules in `AppConfig.ready()` with `declare()`; the
idempotent `python manage.py setup_schedules` writes them with `update_or_create`
keyed on the unique name, so re-running it (every `make run`, every deploy) changes
nothing twice.
"""

from dataclasses import dataclass
from datetime import datetime, time, timedelta

from django.utils import timezone
from django_q.models import Schedule


@dataclass(frozen=True)
class ScheduleSpec:
    name: str
    func: str
    schedule_type: str
    minutes: int | None = None
    # A daily job's time of day (local time, Lagos): its first run when the
    # schedule is created. Later `sync()`s keep the run time django-q2 keeps.
    at: time | None = None
    # The job's arguments, as django-q2 keeps them: a Python literal of a
    # tuple, e.g. "('test',)" (empty: none).
    args: str = ""


_declared: dict[str, ScheduleSpec] = {}


def declare(spec: ScheduleSpec) -> None:
    _declared[spec.name] = spec


def declared() -> list[ScheduleSpec]:
    return sorted(_declared.values(), key=lambda spec: spec.name)


def next_at(at: time, now: datetime | None = None) -> datetime:
    """The next moment that is `at` o'clock, local time (today's if still ahead)."""
    now = timezone.localtime(now)
    candidate = timezone.make_aware(datetime.combine(now.date(), at))
    return candidate if candidate > now else candidate + timedelta(days=1)


def sync() -> list[tuple[str, bool]]:
    results = []
    for spec in declared():
        defaults = {
            "func": spec.func,
            "schedule_type": spec.schedule_type,
            "minutes": spec.minutes,
            "args": spec.args or None,
            "repeats": -1,
        }
        first_run = {"next_run": next_at(spec.at)} if spec.at else {}
        _, created = Schedule.objects.update_or_create(
            name=spec.name,
            defaults=defaults,
            create_defaults={**defaults, **first_run},
        )
        results.append((spec.name, created))
    return results
