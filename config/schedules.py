"""Recurring django-q2 jobs, declared in code (DESIGN section 13).

Each app declares its schedules in `AppConfig.ready()` with `declare()`; the
idempotent `python manage.py setup_schedules` writes them with `update_or_create`
keyed on the unique name, so re-running it (every `make run`, every deploy) changes
nothing twice.
"""

from dataclasses import dataclass

from django_q.models import Schedule


@dataclass(frozen=True)
class ScheduleSpec:
    name: str
    func: str
    schedule_type: str
    minutes: int | None = None


_declared: dict[str, ScheduleSpec] = {}


def declare(spec: ScheduleSpec) -> None:
    _declared[spec.name] = spec


def declared() -> list[ScheduleSpec]:
    return sorted(_declared.values(), key=lambda spec: spec.name)


def sync() -> list[tuple[str, bool]]:
    results = []
    for spec in declared():
        _, created = Schedule.objects.update_or_create(
            name=spec.name,
            defaults={
                "func": spec.func,
                "schedule_type": spec.schedule_type,
                "minutes": spec.minutes,
                "repeats": -1,
            },
        )
        results.append((spec.name, created))
    return results
