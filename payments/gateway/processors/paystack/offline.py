"""Paystack's pay with transfer and USSD (reference/paystack.md, "Pay with
transfer and USSD"): `POST /charge` with `bank_transfer` or `ussd`, a mixin
of PaystackProcessor.

The reply gives what the customer needs (an account that takes one transfer
of the exact amount until it expires, or a code to dial); the money is
confirmed later by `charge.success`, re-verified. A POST, sent once: a timeout
or a 5xx leaves the outcome unknown (verify the reference), Paystack's own
refusal (a duplicate reference, an invalid amount) is ProcessorRefused, and a
reply saying the charge failed at once is an OfflineCharge `failed` with
Paystack's words.
"""

from django.utils.dateparse import parse_datetime

from config.api.formats import iso_utc

from ..base import OfflineCharge, OfflineChargeRequest, PayChannel

# Paystack's `data.status` of a charge that now waits for the customer.
PENDING_BANK_TRANSFER = "pending_bank_transfer"
PAY_OFFLINE = "pay_offline"
_WAITING = {
    PayChannel.BANK_TRANSFER: PENDING_BANK_TRANSFER,
    PayChannel.USSD: PAY_OFFLINE,
}


class PaystackOfflineCharges:
    """The transfer and USSD half of PaystackProcessor (mixed into it)."""

    def _offline_charge_open(self, request: OfflineChargeRequest) -> OfflineCharge:
        channel = request.channel
        payload = {
            "email": request.email,
            "amount": request.amount,
            "currency": request.currency,
            "reference": request.reference,
            "metadata": request.metadata,
        }
        if channel == PayChannel.BANK_TRANSFER:
            payload["bank_transfer"] = {
                "account_expires_at": iso_utc(request.expires_at)
            }
        else:
            payload["ussd"] = {"type": request.ussd_bank}
        body = self._call("POST", "/charge", json=payload)
        with self._parsing("POST /charge"):
            data = body["data"]
            common = {
                "reference": request.reference,  # ours, not the echo
                "channel": channel,
                "amount": request.amount,
                "currency": request.currency,
                "expires_at": request.expires_at,
                "display_text": str(data.get("display_text") or ""),
                "processor_id": str(data.get("id") or ""),
            }
            if str(data["status"]) != _WAITING[channel]:
                return OfflineCharge(
                    status="failed",
                    gateway_response=_refusal_text(data, body),
                    **common,
                )
            if channel == PayChannel.USSD:
                return OfflineCharge(
                    status="pending", ussd_code=_required(data, "ussd_code"), **common
                )
            return OfflineCharge(
                status="pending",
                bank_name=_required(data["bank"], "name"),
                account_number=_required(data, "account_number"),
                account_name=str(data.get("account_name") or ""),
                **{**common, "expires_at": _expiry(data) or request.expires_at},
            )


def _required(data: dict, name: str) -> str:
    """A field the customer cannot pay without (a malformed reply lacks it)."""
    value = str(data[name] or "").strip()
    if not value:
        raise ValueError(f"{name} is empty")
    return value


def _expiry(data: dict):
    """Paystack's own `account_expires_at` (the account's real end), if given."""
    value = data.get("account_expires_at")
    return parse_datetime(value) if isinstance(value, str) else None


def _refusal_text(data: dict, body: dict) -> str:
    return str(
        data.get("gateway_response")
        or data.get("message")
        or data.get("display_text")
        or body.get("message")
        or f"Paystack answered {data.get('status')!r}"
    )
