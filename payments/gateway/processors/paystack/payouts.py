"""Paystack's bank list, account resolution and transfers (payouts), as a part
of `PaystackProcessor`: the HTTP calls and their parsing come from
`PaystackTransport`, which the processor class combines with this one."""

from urllib.parse import quote

from ...errors import AccountNotResolved, ProcessorRefused
from ..base import Bank, ResolvedAccount, TransferRecipient, TransferResult


class PaystackPayouts:
    """Banks and payouts (reference/paystack.md, "Transfers")."""

    def list_banks(self):
        body = self._call(
            "GET",
            "/bank",
            params={"country": "nigeria", "pay_with_bank": "true", "perPage": 100},
        )
        with self._parsing("GET /bank"):
            return [
                Bank(name=str(item["name"]), code=str(item["code"]))
                for item in self._items(body)
                if item.get("active", True) and not item.get("is_deleted", False)
            ]

    def resolve_account(self, *, bank_code, account_number):
        try:
            body = self._call(
                "GET",
                "/bank/resolve",
                params={"account_number": account_number, "bank_code": bank_code},
            )
        except ProcessorRefused as error:
            raise AccountNotResolved(
                f"The bank could not resolve this account: {error.processor_message}"
            ) from None
        with self._parsing("GET /bank/resolve"):
            data = body["data"]
            return ResolvedAccount(
                account_number=str(data["account_number"]),
                account_name=str(data["account_name"]),
                bank_code=bank_code,
            )

    def create_transfer_recipient(
        self, *, name, bank_code, account_number, currency="NGN"
    ):
        body = self._call(
            "POST",
            "/transferrecipient",
            json={
                "type": "nuban",
                "name": name,
                "account_number": account_number,
                "bank_code": bank_code,
                "currency": currency,
            },
        )
        with self._parsing("POST /transferrecipient"):
            data = body["data"]
            details = data.get("details") or {}
            return TransferRecipient(
                recipient_code=str(data["recipient_code"]),
                name=str(data.get("name") or name),
                account_number=str(details.get("account_number") or account_number),
                bank_code=str(details.get("bank_code") or bank_code),
            )

    def transfer(self, *, amount, recipient_code, reference, reason, currency="NGN"):
        body = self._call(
            "POST",
            "/transfer",
            json={
                "source": "balance",
                "amount": amount,
                "currency": currency,
                "recipient": recipient_code,
                "reference": reference,
                "reason": reason,
            },
        )
        with self._parsing("POST /transfer"):
            return self._transfer(body["data"], reference)

    def verify_transfer(self, *, reference):
        return self._fetch(
            f"/transfer/verify/{quote(reference, safe='')}",
            lambda data: self._transfer(data, reference),
        )

    @staticmethod
    def _transfer(data: dict, reference: str) -> TransferResult:
        return TransferResult(
            reference=str(data.get("reference") or reference),
            status=str(data["status"]),
            amount=int(data["amount"]),
            transfer_code=str(data.get("transfer_code") or ""),
            reason=str(data.get("reason") or ""),
        )
