"""The registry of business metrics read from the database at scrape time.

An app that has figures to show registers a source in its `AppConfig.ready()`:
a function returning Prometheus metric families (`prometheus_client.core`'s
`CounterMetricFamily`, `GaugeMetricFamily`) counted from its own tables. The
scrape runs every source (config/observability/metrics.py), so the code paths that
change those tables (the engine, checkout, webhook delivery) do no metrics work,
and every web process answers the same figures.
"""

from collections.abc import Callable, Iterable

from prometheus_client.metrics_core import Metric

Source = Callable[[], Iterable[Metric]]

_sources: dict[str, Source] = {}


def register_metrics_source(name: str, collect: Source) -> None:
    """`name` labels the source's own health (`metrics_source_up{source=...}`);
    registering a name again replaces its function."""
    _sources[name] = collect


def registered_sources() -> dict[str, Source]:
    return dict(_sources)
