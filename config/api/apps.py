from django.apps import AppConfig


class ApiConfig(AppConfig):
    """Framework glue every app shares: envelope, errors, ids, JWT, rate limits."""

    name = "config.api"
    label = "api"
    verbose_name = "API plumbing"

    def ready(self):
        from django_q.models import Schedule

        from config.schedules import ScheduleSpec, declare

        declare(
            ScheduleSpec(
                name="purge-expired-counters",
                func="config.api.tasks.purge_expired_counters",
                schedule_type=Schedule.MINUTES,
                minutes=10,
            )
        )
