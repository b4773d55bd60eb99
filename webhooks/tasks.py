from django_q.tasks import async_task

from . import services


def deliver_due_webhooks() -> int:
    """The delivery pass: run on commit after events are emitted (fast path) and
    every minute by the sweeper schedule. Safe to run twice or in two clusters."""
    services.pass_started()
    result = services.deliver_due()
    if result.more:
        async_task(services.DELIVER_TASK, task_name="deliver-webhooks")
    return result.attempted
