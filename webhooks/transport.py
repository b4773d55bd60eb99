"""Outbound HTTP for webhooks: signing, the SSRF guard, one POST and its outcome.

The guard runs where the socket is opened, not only when a URL is saved: the
connection class resolves the host name, refuses it when any address it resolves
to is not allowed (`address_allowed`), and then connects to the very address it
checked, so a name that resolves differently a second later (DNS rebinding) cannot
slip through. `check_url` is the part that needs no lookup (scheme, credentials, a
host written as an address in any spelling); saving a URL in the settings, the
test endpoint and every attempt run it. Every outbound webhook request (test,
delivery, replay) goes through `post()`, and `post()` only uses this guarded
session, with proxies, .netrc, cookies and redirects off.
"""

import hashlib
import hmac
import http.cookiejar
import logging
import os
import socket
import threading
import time
from dataclasses import dataclass
from datetime import datetime

import requests
from django.conf import settings
from django.utils import timezone
from requests.adapters import HTTPAdapter
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool
from urllib3.exceptions import (
    ConnectTimeoutError,
    NameResolutionError,
    NewConnectionError,
    ReadTimeoutError,
)
from urllib3.util.connection import allowed_gai_family

from config.destinations import UrlNotAllowed, address_allowed, check_url, refusal

logger = logging.getLogger(__name__)

USER_AGENT = "installments-webhooks/1"
# Receivers should answer at once; a longer body is not read (and not stored).
MAX_RESPONSE_BYTES = 64 * 1024
REFUSED_PREFIX = "URL not allowed: "


# Signing ------------------------------------------------------------------


def signature(body: bytes, secret: str) -> str:
    return hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def signed_headers(*, body: bytes, secret: str, event_id: str, timestamp: int):
    timestamped = signature(f"{timestamp}.".encode() + body, secret)
    return {
        "Content-Type": "application/json",
        "User-Agent": USER_AGENT,
        "X-Service-Signature": signature(body, secret),
        "X-Service-Event-Id": event_id,
        "X-Service-Timestamp": str(timestamp),
        "X-Service-Signature-Timestamped": f"t={timestamp},v1={timestamped}",
    }


# The guard ----------------------------------------------------------------


def _vetted_addresses(host: str, port: int) -> list[tuple]:
    """getaddrinfo() results for host, or UrlNotAllowed if any of them is refused."""
    try:
        infos = socket.getaddrinfo(host, port, allowed_gai_family(), socket.SOCK_STREAM)
    except UnicodeError:
        raise UrlNotAllowed("the host name is not valid") from None
    private_networks = settings.WEBHOOK_ALLOW_PRIVATE_NETWORKS
    for *_, sockaddr in infos:
        address = sockaddr[0].split("%", 1)[0]
        if not address_allowed(address, private_networks=private_networks):
            raise refusal(host, address)
    return infos


class _GuardedConnectionMixin:
    def _new_conn(self) -> socket.socket:
        try:
            infos = _vetted_addresses(self._dns_host, self.port)
        except socket.gaierror as error:
            raise NameResolutionError(self.host, self, error) from error
        last_error: OSError | None = None
        for family, socktype, proto, _, sockaddr in infos:
            sock = socket.socket(family, socktype, proto)
            try:
                for option in self.socket_options or ():
                    sock.setsockopt(*option)
                if isinstance(self.timeout, int | float):
                    sock.settimeout(self.timeout)
                sock.connect(sockaddr)
                return sock
            except OSError as error:
                sock.close()
                last_error = error
        if isinstance(last_error, TimeoutError):
            raise ConnectTimeoutError(
                self, f"Connection to {self.host} timed out."
            ) from last_error
        raise NewConnectionError(
            self, f"Failed to establish a new connection: {last_error}"
        ) from last_error


class GuardedHTTPConnection(_GuardedConnectionMixin, HTTPConnection):
    pass


class GuardedHTTPSConnection(_GuardedConnectionMixin, HTTPSConnection):
    pass


class GuardedHTTPConnectionPool(HTTPConnectionPool):
    ConnectionCls = GuardedHTTPConnection


class GuardedHTTPSConnectionPool(HTTPSConnectionPool):
    ConnectionCls = GuardedHTTPSConnection


class GuardedAdapter(HTTPAdapter):
    def init_poolmanager(self, *args, **kwargs):
        super().init_poolmanager(*args, **kwargs)
        self.poolmanager.pool_classes_by_scheme = {
            "http": GuardedHTTPConnectionPool,
            "https": GuardedHTTPSConnectionPool,
        }

    def proxy_manager_for(self, proxy, **proxy_kwargs):
        raise UrlNotAllowed("webhooks are never sent through a proxy")


def new_session() -> requests.Session:
    session = requests.Session()
    session.trust_env = False  # no proxies or .netrc from the environment
    session.cookies.set_policy(http.cookiejar.DefaultCookiePolicy(allowed_domains=[]))
    adapter = GuardedAdapter(
        pool_connections=256,
        pool_maxsize=max(settings.WEBHOOK_DELIVERY_THREADS, 1),
        max_retries=0,
    )
    session.mount("http://", adapter)
    session.mount("https://", adapter)
    return session


_shared: dict[int, requests.Session] = {}
_shared_lock = threading.Lock()


def shared_session() -> requests.Session:
    """One keep-alive session per process (connection pools are thread-safe), made
    after any fork, so that a worker reuses its connections to a receiver."""
    pid = os.getpid()
    session = _shared.get(pid)
    if session is None:
        with _shared_lock:
            session = _shared.get(pid)
            if session is None:
                session = _shared[pid] = new_session()
    return session


# One POST -----------------------------------------------------------------


@dataclass(frozen=True)
class Outcome:
    delivered: bool
    status_code: int | None
    latency_ms: int
    error: str
    attempted_at: datetime
    refused: bool = False


def _causes(error: BaseException):
    """The error and everything it wraps (urllib3 and requests nest them)."""
    seen, stack = set(), [error]
    while stack:
        current = stack.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        yield current
        nested = [
            current.__cause__,
            current.__context__,
            getattr(current, "reason", None),
        ]
        nested.extend(current.args[:1])
        stack.extend(item for item in nested if isinstance(item, BaseException))


def _failure(error: requests.RequestException, timeout: float) -> str:
    """The `error` text of an attempt that got no HTTP answer."""
    causes = list(_causes(error))
    if any(isinstance(cause, ConnectionRefusedError) for cause in causes):
        return "connection refused"
    if any(
        isinstance(cause, NameResolutionError | socket.gaierror) for cause in causes
    ):
        return "host name could not be resolved"
    # NewConnectionError subclasses ConnectTimeoutError, hence the order above.
    if isinstance(error, requests.Timeout) or any(
        isinstance(cause, TimeoutError | ReadTimeoutError | ConnectTimeoutError)
        for cause in causes
    ):
        return f"timeout after {timeout:g} s"
    if isinstance(error, requests.exceptions.SSLError):
        return "TLS handshake failed"
    return f"connection failed: {error}"[:300]


def post(
    *,
    url: str,
    body: bytes,
    secret: str,
    event_id: str,
    session: requests.Session | None = None,
) -> Outcome:
    """POST one signed body; never raises for anything the receiver does."""
    attempted_at = timezone.now()
    timeout = settings.WEBHOOK_TIMEOUT_SECONDS
    started = time.perf_counter()

    def outcome(delivered=False, status_code=None, error="", refused=False):
        latency = round((time.perf_counter() - started) * 1000)
        return Outcome(delivered, status_code, latency, error, attempted_at, refused)

    if not url:
        return outcome(error="no webhook URL is set")
    if not secret:
        # Events are never sent unsigned.
        return outcome(error="no webhook secret is set")
    headers = signed_headers(
        body=body,
        secret=secret,
        event_id=event_id,
        timestamp=int(attempted_at.timestamp()),
    )
    try:
        check_url(url)
        response = (session or shared_session()).post(
            url,
            data=body,
            headers=headers,
            timeout=(timeout, timeout),
            allow_redirects=False,
            stream=True,
        )
    except UrlNotAllowed as error:
        return outcome(error=f"{REFUSED_PREFIX}{error}", refused=True)
    except requests.RequestException as error:
        return outcome(error=_failure(error, timeout))
    except Exception as error:
        # The URL comes from a merchant: whatever it makes the stack raise is a
        # failed attempt, not a crash of the batch or a 500 on endpoint 21.
        logger.warning("Webhook POST to %r failed: %r", url, error)
        return outcome(error=f"request failed: {type(error).__name__}")
    delivered = 200 <= response.status_code < 300
    result = outcome(
        delivered=delivered,
        status_code=response.status_code,
        error="" if delivered else f"HTTP {response.status_code}",
    )
    _drain(response, deadline=started + timeout)
    return result


def _drain(response: requests.Response, *, deadline: float) -> None:
    """Read a short, quick body so that the connection goes back to the pool;
    give up (and drop the connection) otherwise. The outcome is already known."""
    with response:
        read = 0
        try:
            for chunk in response.iter_content(16384):
                read += len(chunk)
                if read > MAX_RESPONSE_BYTES or time.perf_counter() > deadline:
                    break
        except (requests.RequestException, OSError):
            pass
