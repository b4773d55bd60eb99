"""HTTP transport to Paystack: one call, its timeout, and the mapping of what
comes back (or does not) onto the processor errors of payments.gateway.errors."""

import logging
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

import requests

from config.sides import refuse_in_test_side

from ...errors import ProcessorError, ProcessorRefused, ProcessorTimeout

T = TypeVar("T")

logger = logging.getLogger("payments.paystack")


class PaystackTransport:
    # (connect, read) seconds for every call.
    timeout = (5, 20)

    def __init__(
        self,
        *,
        base_url: str,
        secret_key: str,
        session: requests.Session | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ):
        self.base_url = base_url.rstrip("/")
        self._secret_key = secret_key
        self._session = session or requests.Session()
        self._sleep = sleep

    def _call(
        self, method: str, path: str, *, json: dict | None = None, params=None
    ) -> dict:
        """Paystack's reply body for a 2xx with `status: true`; raises otherwise."""
        refuse_in_test_side("Paystack")
        what = f"{method} {path}"
        attempts = 2 if method == "GET" else 1
        for attempt in range(1, attempts + 1):
            try:
                response = self._session.request(
                    method,
                    self.base_url + path,
                    json=json,
                    params=params,
                    headers={
                        "Authorization": f"Bearer {self._secret_key}",
                        "Accept": "application/json",
                    },
                    timeout=self.timeout,
                )
            except requests.Timeout:
                logger.warning("Paystack timeout on %s (attempt %s)", what, attempt)
                if attempt < attempts:
                    continue
                raise ProcessorTimeout(
                    f"The payment processor did not answer {what} within "
                    f"{self.timeout[1]} s; try again shortly."
                ) from None
            except requests.RequestException as error:
                logger.warning("Paystack unreachable on %s: %s", what, error)
                if attempt < attempts:
                    continue
                raise ProcessorError(
                    f"The payment processor could not be reached ({what}); "
                    "try again shortly."
                ) from None
            if response.status_code >= 500 and attempt < attempts:
                logger.warning("Paystack HTTP %s on %s", response.status_code, what)
                continue
            return self._body(response, what)
        raise AssertionError("unreachable")  # pragma: no cover

    @staticmethod
    def _body(response: requests.Response, what: str) -> dict:
        if response.status_code >= 500:
            raise ProcessorError(
                f"The payment processor failed with HTTP {response.status_code} "
                f"on {what}; try again shortly."
            )
        if response.status_code in (401, 403):
            logger.error("Paystack refused the secret key on %s", what)
            raise ProcessorError(
                "The payment processor refused the service's credentials; the "
                "operators have been alerted."
            )
        try:
            body = response.json()
        except ValueError:
            body = None
        if not isinstance(body, dict) or not isinstance(body.get("status"), bool):
            logger.error("Paystack sent a malformed body on %s", what)
            raise ProcessorError(
                f"The payment processor sent a malformed reply to {what}."
            )
        if response.status_code >= 400 or body["status"] is False:
            message = str(body.get("message") or "The request was refused.")
            raise ProcessorRefused(
                f"The payment processor refused the request: {message}",
                processor_code=str(body.get("code") or ""),
                processor_message=message,
                processor_status=response.status_code,
            )
        return body

    @contextmanager
    def _parsing(self, what: str) -> Iterator[None]:
        """A reply whose `data` lacks what Paystack documents is malformed."""
        try:
            yield
        except (KeyError, TypeError, ValueError, AttributeError):
            logger.error("Paystack reply to %s lacks documented fields", what)
            raise ProcessorError(
                f"The payment processor sent a malformed reply to {what}."
            ) from None

    @staticmethod
    def _items(body: dict) -> list:
        """`data` of a list endpoint (a malformed reply raises, inside _parsing)."""
        data = body["data"]
        if not isinstance(data, list):
            raise TypeError("data is not a list")
        return data

    def _fetch(self, path: str, parse: Callable[[dict], T]) -> T | None:
        """GET one resource (`path` with its id already quoted): `parse(data)`,
        or None when Paystack does not know it."""
        try:
            body = self._call("GET", path)
        except ProcessorRefused as error:
            if self._is_not_found(error):
                return None
            raise
        with self._parsing(f"GET {path}"):
            return parse(body["data"])

    @staticmethod
    def _is_not_found(error: ProcessorRefused) -> bool:
        return (
            error.processor_status == 404
            or "not_found" in error.processor_code
            or "not found" in error.processor_message.lower()
        )
