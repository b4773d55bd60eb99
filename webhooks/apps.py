from django.apps import AppConfig


class WebhooksConfig(AppConfig):
    name = "webhooks"
    verbose_name = "Outbound webhooks"

    def ready(self):
        from django_q.models import Schedule

        from config.observability.sources import register_metrics_source
        from config.schedules import ScheduleSpec, declare

        from . import metrics

        register_metrics_source("webhooks", metrics.metric_families)
        # The sweeper: sends whatever is due, whatever happened to the fast path.
        declare(
            ScheduleSpec(
                name="deliver-due-webhooks",
                func="webhooks.tasks.deliver_due_webhooks",
                schedule_type=Schedule.MINUTES,
                minutes=1,
            )
        )
