"""The SSRF guard refuses private destinations where the socket is opened."""

import socket

import pytest

from webhooks import services, transport
from webhooks.models import Delivery

from .conftest import make_subscriber

BODY = b'{"eventId":"evt_x"}'


@pytest.fixture
def strict(settings):
    settings.WEBHOOK_ALLOW_PRIVATE_NETWORKS = False
    settings.WEBHOOK_ALLOW_HTTP = False


def send(url: str) -> transport.Outcome:
    return transport.post(url=url, body=BODY, secret="s" * 16, event_id="evt_x")


@pytest.mark.parametrize(
    "url",
    [
        "https://127.0.0.1/hooks",
        "https://10.0.0.1/hooks",
        "https://169.254.169.254/latest/meta-data",
        "https://[::1]/hooks",
        "https://[::ffff:127.0.0.1]/hooks",
        "https://192.168.1.20:8443/hooks",
        "https://100.64.0.1/hooks",
        "https://0.0.0.0/hooks",
        "https://2130706433/hooks",  # 127.0.0.1 written as one number
        "https://localhost/hooks",
    ],
)
def test_private_loopback_and_metadata_destinations_are_refused(strict, url):
    outcome = send(url)

    assert outcome.refused is True
    assert outcome.delivered is False
    assert outcome.status_code is None
    assert outcome.error.startswith("URL not allowed: ")


@pytest.mark.parametrize("private", ["127.0.0.1", "10.0.0.1", "169.254.169.254", "::1"])
def test_a_public_looking_name_that_resolves_privately_is_refused_at_connect(
    strict, monkeypatch, private
):
    """The name is only resolved when connecting, by the guarded connection."""
    lookups = []
    real = socket.getaddrinfo

    def resolver(host, port, *args, **kwargs):
        if host == "hooks.shop-example.ng":
            lookups.append(host)
            family = socket.AF_INET6 if ":" in private else socket.AF_INET
            address = (private, port, 0, 0) if ":" in private else (private, port)
            return [(family, socket.SOCK_STREAM, 6, "", address)]
        return real(host, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", resolver)

    outcome = send("https://hooks.shop-example.ng/webhooks")

    assert lookups == ["hooks.shop-example.ng"]
    assert outcome.refused is True
    assert outcome.error == (
        f"URL not allowed: hooks.shop-example.ng resolves to {private}, a loopback, "
        "private, link-local or reserved address"
    )


def test_plain_http_is_refused_unless_allowed(strict):
    outcome = send("http://hooks.shop-example.ng/webhooks")

    assert outcome.refused is True
    assert outcome.error == "URL not allowed: the URL must use https"


@pytest.mark.parametrize(
    "address", ["8.8.8.8", "2a00:1450:4001:80b::200e", "102.89.32.1"]
)
def test_public_addresses_pass_the_guard(address):
    assert transport.address_allowed(address) is True


def test_private_networks_are_reachable_when_allowed(receiver):
    outcome = send(receiver.url)

    assert outcome.delivered is True
    assert outcome.refused is False


@pytest.mark.django_db
def test_a_refused_url_is_a_recorded_failed_attempt_on_delivery(strict):
    merchant = make_subscriber("https://127.0.0.1:8443/hooks")
    event = services.emit_event(
        merchant=merchant, event_type="goods.release", data={"resourceId": "plan_x"}
    )

    services.deliver_due()

    [attempt] = event.attempts.all()
    assert attempt.delivered is False
    assert attempt.error.startswith("URL not allowed: 127.0.0.1 resolves to 127.0.0.1")
    assert Delivery.objects.get(event=event).status == Delivery.Status.PENDING


def test_a_malformed_host_is_a_failed_attempt_not_a_crash(strict):
    outcome = send("https://" + "a" * 70 + ".example.com/hooks")

    assert outcome.delivered is False
    assert outcome.error


def test_redirects_are_not_followed(receiver):
    receiver.answer(302)

    outcome = send(receiver.url)

    assert (outcome.delivered, outcome.status_code) == (False, 302)
    assert outcome.error == "HTTP 302"
    assert len(receiver.received) == 1
