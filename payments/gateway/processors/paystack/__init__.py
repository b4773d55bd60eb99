"""Paystack adapter: real HTTPS calls with `requests` (reference/paystack.md).

Every call has a timeout. GETs are idempotent and are tried twice; POSTs are sent
once, never retried here: after a timeout the caller verifies the reference
before charging again. A timeout, a connection error, a 5xx or a body that is
not Paystack's `{status, message, data}` becomes ProcessorTimeout/ProcessorError;
Paystack's own refusals (4xx, `status: false`) become ProcessorRefused, or the
specific meaning the call gives them (not found, wrong OTP, declined charge).
"""

from datetime import date
from urllib.parse import quote

from django.utils.dateparse import parse_datetime

from ...errors import InvalidOtp, ProcessorRefused
from ..base import (
    Authorization,
    ChargeStatus,
    ChargeStep,
    DirectDebitAuthorization,
    DirectDebitRequest,
    InitializedTransaction,
    PayChannel,
    Processor,
    RevokedMandate,
    TransactionResult,
    TransactionStatus,
)
from ..reasons import failure_reason_from_text
from .disputes import PaystackDisputes
from .offline import PaystackOfflineCharges
from .payouts import PaystackPayouts
from .refunds import PaystackRefunds
from .transport import PaystackTransport

_TRANSACTION_STATUSES = {
    "success": TransactionStatus.SUCCESS,
    "failed": TransactionStatus.FAILED,
    "reversed": TransactionStatus.FAILED,
    "abandoned": TransactionStatus.ABANDONED,
}
# Paystack's `channel` of a transaction -> the PayChannel events name. A
# dedicated virtual account (`dedicated_nuban`) is paid by bank transfer.
_CHANNELS = {
    "card": PayChannel.CARD,
    "bank": PayChannel.BANK_ACCOUNT,
    "bank_transfer": PayChannel.BANK_TRANSFER,
    "ussd": PayChannel.USSD,
    "dedicated_nuban": PayChannel.BANK_TRANSFER,
}
_MAX_REVOKED_PAGES = 50


class PaystackProcessor(
    PaystackDisputes,
    PaystackOfflineCharges,
    PaystackPayouts,
    PaystackRefunds,
    PaystackTransport,
    Processor,
):
    name = "paystack"
    # `authorization_url` of transaction/initialize is a checkout.paystack.com page.
    hosted_page_origins = ("https://checkout.paystack.com",)
    # A `pending` charge reply is polled this many times, `poll_interval` apart
    # (Paystack asks for about 10 s between polls), then reported as pending.
    pending_polls = 2
    poll_interval = 5

    # -- cards -------------------------------------------------------------

    def initialize_transaction(
        self,
        *,
        email,
        amount,
        reference,
        callback_url,
        currency="NGN",
        channels=("card",),
        metadata=None,
    ):
        body = self._call(
            "POST",
            "/transaction/initialize",
            json={
                "email": email,
                "amount": amount,
                "currency": currency,
                "reference": reference,
                "callback_url": callback_url,
                "channels": list(channels),
                "metadata": metadata or {},
            },
        )
        return self._redirect(
            body,
            "POST /transaction/initialize",
            InitializedTransaction,
            "authorization_url",
        )

    def _redirect(self, body: dict, what: str, result: type, url: str):
        """A reply that sends the customer to a page of the processor's (`url`
        names it): `result` of its reference, that page and its access code."""
        with self._parsing(what):
            data = body["data"]
            return result(
                str(data["reference"]),
                str(data[url]),
                str(data.get("access_code") or ""),
            )

    def verify_transaction(self, *, reference):
        return self._fetch(
            f"/transaction/verify/{quote(reference, safe='')}", self._transaction
        )

    def charge_authorization(
        self,
        *,
        email,
        amount,
        authorization_code,
        reference,
        currency="NGN",
        metadata=None,
    ):
        return self._debit(
            "/transaction/charge_authorization",
            {
                "email": email,
                "amount": amount,
                "currency": currency,
                "authorization_code": authorization_code,
                "reference": reference,
                "metadata": metadata or {},
            },
        )

    def partial_debit(
        self, *, email, amount, at_least, authorization_code, reference, currency="NGN"
    ):
        return self._debit(
            "/transaction/partial_debit",
            {
                "authorization_code": authorization_code,
                "currency": currency,
                "amount": amount,
                "email": email,
                "at_least": at_least,
                "reference": reference,
            },
        )

    def _debit(self, path: str, payload: dict) -> TransactionResult:
        """A charge of a saved authorization (whole or partial): its result,
        read from the reply's transaction (`data.amount` is what was taken)."""
        reference = payload["reference"]
        try:
            body = self._call("POST", path, json=payload)
        except ProcessorRefused as error:
            if "duplicate" in error.processor_message.lower():
                # The reference was used: the caller must verify it, not retry.
                raise
            # Paystack refuses a dead authorization with a 4xx: that is a
            # declined charge, and its reason may say the authorization is gone.
            return TransactionResult(
                reference=reference,
                status=TransactionStatus.FAILED,
                amount=payload["amount"],
                currency=payload["currency"],
                gateway_response=error.processor_message,
                failure_reason=failure_reason_from_text(error.processor_message),
            )
        with self._parsing(f"POST {path}"):
            return self._transaction(body["data"])

    def _transaction(self, data: dict) -> TransactionResult:
        status = _TRANSACTION_STATUSES.get(
            str(data["status"]), TransactionStatus.PENDING
        )
        gateway_response = str(
            data.get("gateway_response") or data.get("message") or ""
        )
        paid_at = data.get("paid_at") or data.get("paidAt")
        authorization = data.get("authorization")
        return TransactionResult(
            reference=str(data["reference"]),
            status=status,
            amount=int(data["amount"]),
            currency=str(data.get("currency") or "NGN"),
            gateway_response=gateway_response,
            failure_reason=(
                failure_reason_from_text(gateway_response)
                if status == TransactionStatus.FAILED
                else ""
            ),
            processor_id=str(data.get("id") or ""),
            paid_at=parse_datetime(paid_at) if isinstance(paid_at, str) else None,
            authorization=self._authorization(authorization)
            if isinstance(authorization, dict)
            and authorization.get("authorization_code")
            else None,
            channel=_CHANNELS.get(str(data.get("channel") or ""), ""),
        )

    @staticmethod
    def _authorization(data: dict) -> Authorization:
        channel = str(data.get("channel") or "card")
        return Authorization(
            authorization_code=str(data["authorization_code"]),
            channel="card" if channel == "card" else "bank",
            signature=str(data.get("signature") or ""),
            brand=str(data.get("brand") or data.get("card_type") or "").strip().lower(),
            last4=str(data.get("last4") or ""),
            exp_month=str(data.get("exp_month") or ""),
            exp_year=str(data.get("exp_year") or ""),
            bank=str(data.get("bank") or ""),
            account_name=str(data.get("account_name") or ""),
            reusable=bool(data.get("reusable", False)),
        )

    # -- bank accounts: the Charge API -------------------------------------

    def charge_bank(
        self, *, email, amount, reference, bank_code, account_number, currency="NGN"
    ):
        body = self._call(
            "POST",
            "/charge",
            json={
                "email": email,
                "amount": amount,
                "currency": currency,
                "reference": reference,
                "bank": {"code": bank_code, "account_number": account_number},
            },
        )
        return self._settled(self._step(body, "POST /charge", reference))

    def submit_otp(self, *, reference, otp):
        try:
            body = self._call(
                "POST", "/charge/submit_otp", json={"reference": reference, "otp": otp}
            )
        except ProcessorRefused as error:
            text = error.processor_message.lower()
            if "otp" in text or "token" in text:
                raise InvalidOtp(error.processor_message) from None
            raise
        step = self._step(body, "POST /charge/submit_otp", reference)
        if step.status == ChargeStatus.SEND_OTP:
            # Asked for the OTP again: the one sent was not accepted.
            raise InvalidOtp(step.display_text or None)
        return self._settled(step)

    def submit_birthday(self, *, reference, birthday: date):
        body = self._call(
            "POST",
            "/charge/submit_birthday",
            json={"reference": reference, "birthday": birthday.isoformat()},
        )
        return self._settled(
            self._step(body, "POST /charge/submit_birthday", reference)
        )

    def submit_phone(self, *, reference, phone):
        body = self._call(
            "POST",
            "/charge/submit_phone",
            json={"reference": reference, "phone": phone},
        )
        return self._settled(self._step(body, "POST /charge/submit_phone", reference))

    def check_charge(self, *, reference):
        path = f"/charge/{quote(reference, safe='')}"
        return self._step(self._call("GET", path), f"GET {path}", reference)

    def _settled(self, step: ChargeStep) -> ChargeStep:
        """Poll a `pending` reply a bounded number of times."""
        for _ in range(self.pending_polls):
            if step.status != ChargeStatus.PENDING:
                break
            self._sleep(self.poll_interval)
            step = self.check_charge(reference=step.reference)
        return step

    def _step(self, body: dict, what: str, reference: str) -> ChargeStep:
        with self._parsing(what):
            data = body["data"]
            status = str(data["status"])
            authorization = data.get("authorization")
            return ChargeStep(
                # Our reference, not the echo: polls and next steps must use it.
                reference=reference,
                status=status,
                display_text=str(
                    data.get("display_text")
                    or data.get("message")
                    or body.get("message")
                    or ""
                ),
                url=str(data.get("url") or ""),
                amount=int(data.get("amount") or 0),
                gateway_response=str(data.get("gateway_response") or ""),
                processor_id=str(data.get("id") or ""),
                authorization=self._authorization(authorization)
                if status == ChargeStatus.SUCCESS
                and isinstance(authorization, dict)
                and authorization.get("authorization_code")
                else None,
            )

    # -- bank accounts: direct-debit authorization ---------------------------

    def initialize_direct_debit(
        self, *, email, callback_url, bank_code, account_number
    ):
        body = self._call(
            "POST",
            "/customer/authorization/initialize",
            json={
                "email": email,
                "channel": "direct_debit",
                "callback_url": callback_url,
                "account": {"number": account_number, "bank_code": bank_code},
            },
        )
        return self._redirect(
            body,
            "POST /customer/authorization/initialize",
            DirectDebitRequest,
            "redirect_url",
        )

    def verify_direct_debit(self, *, reference):
        def parse(data: dict) -> DirectDebitAuthorization:
            return DirectDebitAuthorization(
                reference=reference,
                # Only Paystack's own `true` counts: anything else is not active.
                active=data["active"] is True,
                authorization_code=str(data.get("authorization_code") or ""),
                bank=str(data.get("bank") or ""),
            )

        return self._fetch(
            f"/customer/authorization/verify/{quote(reference, safe='')}", parse
        )

    # -- mandates ----------------------------------------------------------

    def deactivate_authorization(self, *, authorization_code: str) -> None:
        self._call(
            "POST",
            "/customer/deactivate_authorization",
            json={"authorization_code": authorization_code},
        )

    def list_revoked_mandates(self):
        mandates: list[RevokedMandate] = []
        params = {"status": "revoked", "perPage": 100}
        for _ in range(_MAX_REVOKED_PAGES):
            body = self._call(
                "GET", "/directdebit/mandate-authorizations", params=params
            )
            with self._parsing("GET /directdebit/mandate-authorizations"):
                for item in self._items(body):
                    mandates.append(
                        RevokedMandate(
                            authorization_code=str(item["authorization_code"]),
                            account_number=str(item.get("account_number") or ""),
                            bank_code=str(item.get("bank_code") or ""),
                            extra={"mandate_id": item.get("mandate_id")},
                        )
                    )
                cursor = (body.get("meta") or {}).get("next")
            if not cursor:
                break
            params = {**params, "next": cursor}
        return mandates
