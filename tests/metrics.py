"""Reading /metrics as Prometheus does (the `metrics_token` fixture of
tests/conftest.py sets the bearer token)."""

import secrets

from django.test import Client
from prometheus_client.parser import text_string_to_metric_families

TOKEN = secrets.token_urlsafe(32)


def scrape(client=None) -> dict:
    """{(sample name, frozenset of labels): value} of an authorized scrape."""
    response = (client or Client()).get(
        "/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}"
    )
    assert response.status_code == 200, response.content
    assert response["Content-Type"].startswith("text/plain; version=")
    samples = {}
    for family in text_string_to_metric_families(response.content.decode()):
        for sample in family.samples:
            samples[(sample.name, frozenset(sample.labels.items()))] = sample.value
    return samples


def value(samples: dict, name: str, **labels) -> float:
    """The sample of `name` with `labels`; a business figure's live series
    (`mode="live"`) when `mode` is not given and the family has that label."""
    found = samples.get((name, frozenset(labels.items())))
    if found is None and "mode" not in labels:
        found = samples.get((name, frozenset({**labels, "mode": "live"}.items())))
    return found or 0.0
