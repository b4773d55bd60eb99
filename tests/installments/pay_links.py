"""Pay links as tests reach them: made by the merchant's API, found in the
messages sent, opened without signing in."""

import re

from django.core import mail
from django.test import Client
from rest_framework.test import APIClient

PAY_URL = re.compile(r"https?://[^/\s]+(/pay/[A-Za-z0-9_-]{32})")


def merchant_link(setup) -> dict:
    """`POST .../pay-links` with the plan's merchant's key: the answer's data."""
    api = APIClient()
    api.credentials(**setup.owner.headers)
    response = api.post(f"{setup.url}/pay-links")
    assert response.status_code == 201, response.content
    return response.json()["data"]


def path_of(url_or_text: str) -> str:
    """The path `/pay/<token>` of the one pay link in a URL or a message."""
    [path] = PAY_URL.findall(url_or_text)
    return path


def links_sent(sms_outbox) -> list[str]:
    """The pay-link paths of every e-mail and SMS sent so far, in order."""
    bodies = [m.body for m in mail.outbox] + [t.body for t in sms_outbox]
    return [path for body in bodies for path in PAY_URL.findall(body)]


def visitor() -> Client:
    """Someone who opened the link: no session, no credential."""
    return Client()
