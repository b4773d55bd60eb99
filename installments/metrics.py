"""The figures installments gives /metrics, counted from their tables at scrape
time (config/observability/sources.py) by the feature each belongs to, put
together here in the order /metrics shows them: two sources, registered by
apps.py, each read in one transaction of its own.

- `installments`: collections and declines by reason (collection/metrics.py),
  the plans by status (plans/metrics.py), refunds by status
  (refunds/metrics.py) and how far the auto-debit engine is behind
  (collection/metrics.py);
- `installments_messages`: the messages not sent yet
  (notifications/metrics.py).
"""

from .collection import metrics as collection
from .notifications import metrics as notifications
from .plans import metrics as plans
from .refunds import metrics as refunds


def metric_families():
    yield from collection.collections()
    yield collection.declines()
    yield plans.plans()
    yield from refunds.refunds()
    yield from collection.backlog()


def message_families():
    yield from notifications.message_families()
