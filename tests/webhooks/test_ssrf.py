"""The SSRF guard refuses private destinations where the socket is opened."""

import socket

import pytest

from webhooks import services, transport
from webhooks.models import Delivery

from ..conftest import bearer, merchant_jwt
from .conftest import SECRET, make_subscriber

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


# Link-local, metadata and other never-receivers: refused whatever
# WEBHOOK_ALLOW_PRIVATE_NETWORKS says (issue 14) -----------------------------------

TEST_URL = "/api/v1/webhooks/test"
METADATA_NAME = "metadata.shop-example.ng"  # resolves to 169.254.169.254 below

# 169.254.169.254 in every spelling the URL field accepts.
LINK_LOCAL_URLS = [
    "https://169.254.169.254/latest/meta-data/",
    "https://[fe80::1]/hooks",
    "https://[::ffff:169.254.169.254]/latest/meta-data/",
    "https://[::ffff:a9fe:a9fe]/latest/meta-data/",
    "https://[64:ff9b::a9fe:a9fe]/latest/meta-data/",  # NAT64
    "https://[2002:a9fe:a9fe::1]/latest/meta-data/",  # 6to4
    "https://[fd00:ec2::254]/latest/meta-data/",  # EC2's IPv6 metadata address
    f"https://{METADATA_NAME}/latest/meta-data/",
]
# ... and in those only the resolver takes (a stored URL, an attempt).
NUMERIC_LINK_LOCAL_URLS = [
    "https://0xA9FEA9FE/latest/meta-data/",
    "https://2852039166/latest/meta-data/",
    "https://0251.0376.0251.0376/latest/meta-data/",
    "https://169.254.43518/latest/meta-data/",
    "https://[fe80::1%25eth0]/hooks",
]
OTHER_NEVER_RECEIVERS = [
    "https://0.0.0.0/hooks",
    "https://0.1.2.3/hooks",
    "https://[::]/hooks",
    "https://224.0.0.1/hooks",
    "https://[ff02::1]/hooks",
    "https://240.0.0.1/hooks",
    "https://255.255.255.255/hooks",
    "https://100.100.100.200/latest/meta-data/",  # Alibaba Cloud metadata
]


@pytest.fixture(
    params=[False, True], ids=["private-networks-refused", "private-networks-allowed"]
)
def private_networks(request, settings, resolve):
    """Both values of the flag (with plain http following it, as under DEBUG)."""
    settings.WEBHOOK_ALLOW_PRIVATE_NETWORKS = request.param
    settings.WEBHOOK_ALLOW_HTTP = request.param
    resolve(METADATA_NAME, "169.254.169.254")
    return request.param


@pytest.mark.parametrize(
    "url", LINK_LOCAL_URLS + NUMERIC_LINK_LOCAL_URLS + OTHER_NEVER_RECEIVERS
)
def test_link_local_metadata_and_reserved_destinations_are_refused_whatever_the_flag(
    private_networks, connect_attempts, url
):
    outcome = send(url)

    assert outcome.refused is True
    assert outcome.delivered is False
    assert outcome.error.startswith("URL not allowed: ")
    assert connect_attempts == []


@pytest.mark.parametrize(
    "address",
    [
        "169.254.169.254",
        "169.254.170.2",  # ECS task metadata
        "fe80::1",
        "::ffff:169.254.169.254",
        "::a9fe:a9fe",  # IPv4-compatible
        "64:ff9b::a9fe:a9fe",  # NAT64
        "2002:a9fe:a9fe::1",  # 6to4
        "2001:0:4136:e378:8000:63bf:5601:5601",  # Teredo, client 169.254.169.254
        "fd00:ec2::254",
        "0.0.0.0",
        "224.0.0.251",
        "ff02::fb",
    ],
)
def test_a_name_resolving_to_a_never_receiver_is_refused_at_connect_whatever_the_flag(
    private_networks, resolve, connect_attempts, address
):
    resolve("hooks.shop-example.ng", address)

    outcome = send("https://hooks.shop-example.ng/webhooks")

    assert outcome.refused is True
    assert outcome.error == (
        f"URL not allowed: hooks.shop-example.ng resolves to {address}, a loopback, "
        "private, link-local or reserved address"
    )
    assert connect_attempts == []


@pytest.mark.parametrize("address", ["10.0.0.5", "192.168.1.20", "::1", "fd12::5"])
def test_the_flag_still_reaches_the_developers_machine_and_lan(
    settings, resolve, connect_attempts, address
):
    settings.WEBHOOK_ALLOW_PRIVATE_NETWORKS = True
    resolve("receiver.lan", address)

    outcome = send("https://receiver.lan/hooks")

    assert connect_attempts == [address]
    assert (outcome.refused, outcome.error) == (False, "connection refused")


NEVER_ALLOWED = [
    "169.254.169.254",
    "fe80::1",
    "fe80::1%eth0",
    "::ffff:169.254.169.254",
    "::a9fe:a9fe",
    "64:ff9b::a9fe:a9fe",
    "64:ff9b:1::a9fe:a9fe",
    "2002:a9fe:a9fe::1",
    "2001:0:4136:e378:8000:63bf:5601:5601",
    "fd00:ec2::254",
    "100.100.100.200",
    "0.0.0.0",
    "0.1.2.3",
    "::",
    "224.0.0.1",
    "ff02::1",
    "240.0.0.1",
    "255.255.255.255",
    "fec0::1",
    "100::1",
]
ALLOWED_ONLY_WITH_THE_FLAG = [
    "127.0.0.1",
    "10.0.0.1",
    "172.16.0.1",
    "192.168.1.20",
    "100.64.0.1",
    "::1",
    "fd12:3456::1",
    "::ffff:127.0.0.1",
    "::ffff:10.0.0.1",
    "64:ff9b::a00:1",  # NAT64 of 10.0.0.1
    "2002:a00:1::1",  # 6to4 of 10.0.0.1
]


@pytest.mark.parametrize("flag", [False, True])
def test_the_address_rule_with_and_without_the_flag(flag):
    never = [
        a for a in NEVER_ALLOWED if transport.address_allowed(a, private_networks=flag)
    ]
    lan = [
        a
        for a in ALLOWED_ONLY_WITH_THE_FLAG
        if transport.address_allowed(a, private_networks=flag) is not flag
    ]
    public = ["8.8.8.8", "64:ff9b::808:808", "2002:808:808::1", "2a00:1450:4001::1"]

    assert never == []
    assert lan == []
    assert all(transport.address_allowed(a, private_networks=flag) for a in public)


@pytest.mark.django_db
@pytest.mark.parametrize("url", LINK_LOCAL_URLS + NUMERIC_LINK_LOCAL_URLS)
def test_a_delivery_to_a_link_local_url_is_a_refused_attempt_whatever_the_flag(
    private_networks, connect_attempts, url
):
    merchant = make_subscriber(url)  # stored before the save-time rule existed
    event = services.emit_event(
        merchant=merchant, event_type="goods.release", data={"resourceId": "plan_x"}
    )

    services.deliver_due()

    [attempt] = event.attempts.all()
    assert attempt.delivered is False
    assert attempt.error.startswith("URL not allowed: ")
    assert connect_attempts == []
    assert Delivery.objects.get(event=event).status == Delivery.Status.PENDING


@pytest.mark.django_db
@pytest.mark.parametrize("url", LINK_LOCAL_URLS)
def test_the_test_endpoint_refuses_a_link_local_url_whatever_the_flag(
    api, private_networks, connect_attempts, url
):
    merchant = make_subscriber("https://shop.example.com/hooks")

    response = api.post(
        TEST_URL,
        {"webhook_url": url, "webhook_secret": SECRET},
        format="json",
        **bearer(merchant_jwt(merchant)),
    )

    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "webhook_url_not_allowed"
    assert error["message"].startswith("The webhook URL is not allowed: ")
    assert connect_attempts == []


@pytest.mark.django_db
@pytest.mark.parametrize("url", NUMERIC_LINK_LOCAL_URLS)
def test_the_test_endpoint_refuses_numeric_spellings_whatever_the_flag(
    api, private_networks, connect_attempts, url
):
    merchant = make_subscriber(url)

    sent = api.post(
        TEST_URL,
        {"webhook_url": url, "webhook_secret": SECRET},
        format="json",
        **bearer(merchant_jwt(merchant)),
    )
    stored = api.post(TEST_URL, {}, format="json", **bearer(merchant_jwt(merchant)))

    assert sent.status_code == 400
    assert sent.json()["errors"]["webhook_url"] == ["Enter a valid URL."]
    assert stored.status_code == 400
    assert stored.json()["error"]["code"] == "webhook_url_not_allowed"
    assert connect_attempts == []
