"""Paystack's refunds, as a part of `PaystackProcessor`: the HTTP calls and
their parsing come from `PaystackTransport`, which the processor class combines
with this one (reference/paystack.md, "Cards").

`POST /refund` answers the refund with its transaction expanded; `GET /refund/:id`
and `GET /refund?transaction=` name the transaction by its numeric id only, so
their results carry no transaction reference (the caller knows it).
"""

from urllib.parse import quote

from ..base import RefundResult

# A transaction has a handful of refunds; pages past this are not asked for.
_MAX_REFUND_PAGES = 10
_PER_PAGE = 100


class PaystackRefunds:
    """Refunds: ask for one, re-read one, list a transaction's."""

    def refund(
        self,
        *,
        transaction_reference,
        amount=None,
        currency=None,
        merchant_note="",
        customer_note="",
    ):
        payload = {"transaction": transaction_reference}
        if amount is not None:
            payload["amount"] = amount
        if currency:
            payload["currency"] = currency
        if merchant_note:
            payload["merchant_note"] = merchant_note
        if customer_note:
            payload["customer_note"] = customer_note
        body = self._call("POST", "/refund", json=payload)
        with self._parsing("POST /refund"):
            return self._refund(body["data"], transaction_reference)

    def fetch_refund(self, *, refund_id):
        return self._fetch(
            f"/refund/{quote(refund_id, safe='')}", lambda data: self._refund(data, "")
        )

    def list_refunds(self, *, transaction_reference):
        refunds: list[RefundResult] = []
        params = {"transaction": transaction_reference, "perPage": _PER_PAGE}
        for page in range(1, _MAX_REFUND_PAGES + 1):
            body = self._call("GET", "/refund", params={**params, "page": page})
            with self._parsing("GET /refund"):
                refunds += [
                    self._refund(item, transaction_reference)
                    for item in self._items(body)
                ]
                page_count = int((body.get("meta") or {}).get("pageCount") or 1)
            if page >= page_count:
                break
        return refunds

    @staticmethod
    def _refund(data: dict, transaction_reference: str) -> RefundResult:
        transaction = data.get("transaction")
        if isinstance(transaction, dict):
            transaction_reference = str(
                transaction.get("reference") or transaction_reference
            )
        return RefundResult(
            refund_id=str(data.get("id") or ""),
            transaction_reference=str(
                data.get("transaction_reference") or transaction_reference
            ),
            amount=int(data["amount"]),
            status=str(data["status"]),
            currency=str(data.get("currency") or "NGN"),
            merchant_note=str(data.get("merchant_note") or "").strip(),
        )
