"""What the processor answers about banks, accounts, transfers and revoked
mandates (payouts and the nightly poll): part of the processor interface,
importable from `base` as well."""

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Bank:
    name: str
    code: str


@dataclass(frozen=True)
class ResolvedAccount:
    account_number: str
    account_name: str
    bank_code: str


@dataclass(frozen=True)
class TransferRecipient:
    recipient_code: str
    name: str
    account_number: str
    bank_code: str


@dataclass(frozen=True)
class TransferResult:
    reference: str
    status: str  # success, failed, reversed, pending, ...
    amount: int
    transfer_code: str = ""
    reason: str = ""

    CONCLUSIVE = frozenset(
        {"success", "failed", "reversed", "abandoned", "blocked", "rejected"}
    )

    @property
    def conclusive(self) -> bool:
        return self.status in self.CONCLUSIVE


@dataclass(frozen=True)
class RevokedMandate:
    authorization_code: str
    account_number: str = ""
    bank_code: str = ""
    extra: dict = field(default_factory=dict, compare=False)
