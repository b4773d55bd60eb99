"""The product's settings for the bench's `qcluster`: asynchronous, as in
production, polling the ORM broker every 0.1 s."""

from config.settings import *  # noqa: F403
from config.settings import Q_CLUSTER

Q_CLUSTER = {**Q_CLUSTER, "sync": False, "poll": 0.1}
