"""Where webhooks may go: the rule for a webhook URL and for the addresses it leads to.

`check_url` is the one check of a webhook URL that needs no DNS lookup: saving it
in the settings (API and dashboard), the test endpoint and every delivery attempt
run it. `address_allowed` is the rule for an address; the connection applies it
to every address a host name resolves to, where the socket is opened
(webhooks/transport.py).

A foundation at the bottom (not in `webhooks`): the merchant's settings in
`merchants`, below `webhooks`, check a webhook URL with the same rule.
"""

import ipaddress
import re
import socket
from urllib.parse import urlsplit

from django.conf import settings


class UrlNotAllowed(Exception):
    """The URL may not be called. Deliberately not an OSError, so that urllib3
    and requests let it through unwrapped instead of retrying or hiding it."""


# WEBHOOK_ALLOW_PRIVATE_NETWORKS lets a developer reach a receiver on their own
# machine or LAN (loopback, private, shared ranges). What no receiver is, whatever
# it says: link-local (169.254.0.0/16, fe80::/10, where cloud metadata services
# answer), other metadata addresses, "this network" (0.0.0.0/8, ::), multicast,
# reserved and deprecated site-local ranges.
_THIS_NETWORK = ipaddress.ip_network("0.0.0.0/8")
_METADATA = frozenset(
    map(ipaddress.ip_address, ["fd00:ec2::254", "100.100.100.200"])  # EC2, Alibaba
)
_IPV4_COMPATIBLE = ipaddress.ip_network("::/96")
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
# Local-use NAT64 prefixes may put the IPv4 address at several offsets.
_NAT64_LOCAL = ipaddress.ip_network("64:ff9b:1::/48")
# 2852039166, 0xA9FEA9FE, 0251.0376.0251.0376, 169.254.43518: spellings of an
# IPv4 address that the resolver (inet_aton) accepts as a host name.
_NUMERIC_IPV4 = re.compile(r"(0x[0-9a-f]*|[0-9]+)(\.(0x[0-9a-f]*|[0-9]+)){0,3}", re.I)
_LOOPBACK_NAME = ipaddress.ip_address("127.0.0.1")


def _destinations(ip) -> list:
    """What a connection to `ip` reaches. An IPv6 address that only spells an IPv4
    one (IPv4-mapped, IPv4-compatible, NAT64) is that IPv4 address; a 6to4 or
    Teredo address is itself and the IPv4 address it tunnels to."""
    if ip.version == 4:
        return [ip]
    if ip.ipv4_mapped is not None:
        return [ip.ipv4_mapped]
    if ip in _NAT64 or (
        ip in _IPV4_COMPATIBLE and not (ip.is_loopback or ip.is_unspecified)
    ):
        return [ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)]
    tunnelled = ip.sixtofour or (ip.teredo[1] if ip.teredo else None)
    return [ip, tunnelled] if tunnelled else [ip]


def _always_refused(ip) -> bool:
    if ip in _METADATA or ip.is_link_local or ip.is_multicast:
        return True
    if ip.version == 4:
        return ip.is_reserved or ip in _THIS_NETWORK
    # ::/8 is "reserved" as a whole; its loopback ::1 is for the flag to decide.
    return (
        ip.is_unspecified
        or ip.is_site_local
        or ip in _NAT64_LOCAL
        or (ip.is_reserved and not ip.is_loopback)
    )


def address_allowed(address: str, *, private_networks: bool = False) -> bool:
    """True for a globally routable unicast address; with `private_networks` also
    for a loopback or private one, but never for an always-refused one."""
    destinations = _destinations(ipaddress.ip_address(address.split("%", 1)[0]))
    if any(_always_refused(ip) for ip in destinations):
        return False
    return private_networks or all(ip.is_global for ip in destinations)


def refusal(host: str, address) -> UrlNotAllowed:
    """`host` leads to `address`, which `address_allowed` refuses."""
    return UrlNotAllowed(
        f"{host} resolves to {address}, a loopback, private, link-local or reserved "
        "address"
    )


def _literal_address(host: str):
    """The address `host` is when it is written as one, in any spelling the
    resolver takes; None for a host name (the connection checks what it resolves
    to). `localhost` names are loopback by definition (RFC 6761)."""
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        pass
    if _NUMERIC_IPV4.fullmatch(host):
        try:
            return ipaddress.IPv4Address(socket.inet_aton(host))
        except OSError:
            return None
    name = host.rstrip(".")
    if name == "localhost" or name.endswith(".localhost"):
        return _LOOPBACK_NAME
    return None


def check_url(url: str) -> None:
    """The rule for a webhook URL, as far as it can be decided without a DNS
    lookup: http(s) only (plain http only with WEBHOOK_ALLOW_HTTP), a host, no
    credentials, and no host written as a refused address. Saving a URL, the test
    endpoint and every attempt run it; the connection checks the rest."""
    try:
        parts = urlsplit(url)
        host = parts.hostname
        parts.port  # noqa: B018 - raises ValueError on a bad port
    except ValueError:
        raise UrlNotAllowed("the URL cannot be parsed") from None
    if parts.scheme not in ("https", "http"):
        raise UrlNotAllowed(
            "the URL must use http or https"
            if settings.WEBHOOK_ALLOW_HTTP
            else "the URL must use https"
        )
    if parts.scheme == "http" and not settings.WEBHOOK_ALLOW_HTTP:
        raise UrlNotAllowed("the URL must use https")
    if not host:
        raise UrlNotAllowed("the URL has no host")
    if parts.username or parts.password:
        raise UrlNotAllowed("the URL must not carry credentials")
    address = _literal_address(host)
    if address is not None and not address_allowed(
        str(address), private_networks=settings.WEBHOOK_ALLOW_PRIVATE_NETWORKS
    ):
        raise refusal(host, address)


def refusal_message(error: UrlNotAllowed) -> str:
    """A refusal as a sentence for the merchant: "The webhook URL must use https."
    or "The webhook URL is not allowed: <host> resolves to <address>, ..." """
    reason = str(error)
    if reason.startswith("the URL "):
        return f"The webhook URL {reason.removeprefix('the URL ')}."
    return f"The webhook URL is not allowed: {reason}."
