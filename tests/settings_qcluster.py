"""Settings for a real `qcluster` started by a test: the test settings with the
queue asynchronous (tests.settings runs tasks inline)."""

from tests.settings import *  # noqa: F403
from tests.settings import Q_CLUSTER

Q_CLUSTER = {**Q_CLUSTER, "sync": False, "workers": 1, "poll": 0.1}
