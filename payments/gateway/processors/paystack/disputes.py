"""Paystack's disputes, as a part of `PaystackProcessor` (reference/paystack.md,
"Disputes"): the HTTP calls and their parsing come from `PaystackTransport`.

`GET /dispute/:id` answers the dispute with its transaction expanded; the
resolve call names the transaction by its numeric id only, so a dispute it
answers without the expanded transaction is read again. An answer uploads
each file to the signed URL `GET /dispute/:id/upload_url` gives (a storage
host outside api.paystack.co, PUT without our key), then sends the evidence
fields, then resolves the dispute as declined naming the first file.
"""

import logging
from datetime import UTC
from urllib.parse import quote, urlsplit

import requests
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from ...errors import ProcessorError, ProcessorTimeout
from ..dispute_types import DisputeEvidence, DisputeResolution, ProcessorDispute

logger = logging.getLogger("payments.paystack")

# What the bank reads when the merchant contests a dispute without words.
DEFAULT_ANSWER = "The customer received what was paid for; the evidence is attached."


class PaystackDisputes:
    """Disputes: re-read one, answer one with evidence, accept one."""

    def fetch_dispute(self, *, dispute_id):
        return self._fetch(self._dispute_path(dispute_id), _dispute)

    def answer_dispute(
        self, *, dispute_id, evidence: DisputeEvidence, refund_amount
    ) -> ProcessorDispute:
        path = self._dispute_path(dispute_id)
        uploaded = [self._upload(path, item) for item in evidence.files]
        fields = {
            "customer_email": evidence.customer_email,
            "customer_name": evidence.customer_name,
            "customer_phone": evidence.customer_phone,
            "service_details": evidence.service_details,
        }
        if evidence.delivery_address:
            fields["delivery_address"] = evidence.delivery_address
        if evidence.delivery_date:
            fields["delivery_date"] = evidence.delivery_date
        body = self._call("POST", f"{path}/evidence", json=fields)
        with self._parsing(f"POST {path}/evidence"):
            evidence_id = body["data"]["id"]
            if isinstance(evidence_id, bool) or not isinstance(evidence_id, int | str):
                raise TypeError("evidence id")
        resolve = {
            "resolution": DisputeResolution.DECLINED,
            "message": evidence.message or DEFAULT_ANSWER,
            "refund_amount": refund_amount,
            "evidence": evidence_id,
        }
        if uploaded:
            resolve["uploaded_filename"] = uploaded[0]
        return self._resolve(dispute_id, resolve)

    def accept_dispute(self, *, dispute_id, refund_amount, message) -> ProcessorDispute:
        return self._resolve(
            dispute_id,
            {
                "resolution": DisputeResolution.MERCHANT_ACCEPTED,
                "message": message,
                "refund_amount": refund_amount,
            },
        )

    # -- the steps -----------------------------------------------------------

    @staticmethod
    def _dispute_path(dispute_id) -> str:
        return f"/dispute/{quote(str(dispute_id), safe='')}"

    def _resolve(self, dispute_id, payload: dict) -> ProcessorDispute:
        """`PUT /dispute/:id/resolve`: the dispute as the answer gives it, or
        read again when the answer names its transaction by id only."""
        path = f"{self._dispute_path(dispute_id)}/resolve"
        body = self._call("PUT", path, json=payload)
        with self._parsing(f"PUT {path}"):
            data = body["data"]
            if isinstance(data, dict) and isinstance(data.get("transaction"), dict):
                return _dispute(data)
        found = self.fetch_dispute(dispute_id=dispute_id)
        if found is None:
            raise ProcessorError(
                "The payment processor no longer knows the dispute it just resolved."
            )
        return found

    def _upload(self, path: str, item) -> str:
        """One file to its signed URL; the name Paystack knows it by."""
        what = f"GET {path}/upload_url"
        body = self._call(
            "GET", f"{path}/upload_url", params={"upload_filename": item.filename}
        )
        with self._parsing(what):
            data = body["data"]
            signed_url = str(data["signedUrl"])
            if urlsplit(signed_url).scheme != "https":
                raise ValueError("the signed URL is not https")
            name = str(data.get("fileName") or item.filename)
        try:
            response = self._session.put(
                signed_url,
                data=item.content,
                headers={"Content-Type": item.content_type},
                timeout=self.timeout,
            )
        except requests.Timeout:
            logger.warning("Paystack upload of %s timed out", name)
            raise ProcessorTimeout(
                "The payment processor's file storage did not answer within "
                f"{self.timeout[1]} s; try again shortly."
            ) from None
        except requests.RequestException as error:
            logger.warning("Paystack upload of %s failed: %s", name, error)
            raise ProcessorError(
                "The payment processor's file storage could not be reached; "
                "try again shortly."
            ) from None
        if not 200 <= response.status_code < 300:
            logger.warning(
                "Paystack upload of %s answered HTTP %s", name, response.status_code
            )
            raise ProcessorError(
                f"The payment processor's file storage refused the file "
                f"{item.filename!r} (HTTP {response.status_code}); try again shortly."
            )
        return name


def _dispute(data: dict) -> ProcessorDispute:
    """A dispute of `GET /dispute/:id` (its transaction expanded)."""
    transaction = data["transaction"]
    refund_amount = data.get("refund_amount")
    amount = int(refund_amount) if refund_amount else 0
    if amount <= 0:
        amount = int(transaction["amount"])
    due_at = data.get("due_at")
    due_at = parse_datetime(due_at) if isinstance(due_at, str) and due_at else None
    if due_at is not None and timezone.is_naive(due_at):
        due_at = due_at.replace(tzinfo=UTC)
    reason = next(
        (
            text.strip()
            for text in (data.get("message"), data.get("note"))
            if isinstance(text, str) and text.strip()
        ),
        "",
    )
    return ProcessorDispute(
        dispute_id=str(data["id"]),
        transaction_reference=str(transaction["reference"]),
        amount=amount,
        currency=str(data.get("currency") or transaction.get("currency") or "NGN"),
        status=str(data["status"]),
        resolution=str(data.get("resolution") or ""),
        category=str(data.get("category") or ""),
        reason=reason,
        due_at=due_at,
    )
