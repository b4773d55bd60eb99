"""The sandbox processor: a deterministic simulator inside the service.

Its magic values are exactly DESIGN section 9's table (docs/sandbox.md lists them
for merchants). State lives in the database (payments.gateway.models.sandbox), so every
web process and worker sees the same simulated processor, and each charge attempt
is one SandboxTransaction row with a unique reference, like Paystack's refusal of
a duplicate reference.
"""

import hashlib
import re
import time

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from config.api.ids import random_token
from config.db.rows import OneRow, insert_row

from ...models import SandboxAuthorization, SandboxTransaction
from ..base import (
    Authorization,
    FailureReason,
    InitializedTransaction,
    Processor,
    RevokedMandate,
    TransactionResult,
    TransactionStatus,
)
from .banks import (
    SandboxBankCharges,
    _authorization_create,
    _duplicate_reference,
    _page_url,
)
from .clock import sandbox_today
from .disputes import SandboxDisputes
from .offline import (
    SandboxOfflineCharges,
    offline_verified,
    transaction_channel,
)
from .payouts import SandboxPayouts
from .refunds import SandboxRefunds
from .values import (
    CARD_DISPUTED,
    CARD_EXPIRES_THIS_MONTH,
    CARD_FAILS_TWICE,
    CARDS,
    PARTIAL_FUNDS_PERCENT,
    SandboxInputError,
    card_brand,
)

__all__ = ["SandboxInputError", "SandboxProcessor"]

# The authorization every saved-method charge looks up, with SQL written once.
_AUTHORIZATION = OneRow(SandboxAuthorization, equals=("authorization_code",))


def _network_latency() -> None:
    """The round trip a real processor costs (settings.SANDBOX_LATENCY_MS, 0 by
    default), for measuring how the service behaves when each call waits."""
    delay = settings.SANDBOX_LATENCY_MS
    if delay > 0:
        time.sleep(delay / 1000)


# An installment attempt's reference: `<installment id>_a<n>[m<k>]`.
_ATTEMPT = re.compile(r"_a([0-9]+)(?:m[0-9]+)?$")
# The card that fails twice: attempts up to this one fail.
FAILING_ATTEMPTS = 2


def _fails_for_now(reference: str) -> bool:
    """An installment's attempt 1 or 2 (any other charge: no)."""
    attempt = _ATTEMPT.search(reference)
    return attempt is not None and int(attempt.group(1)) <= FAILING_ATTEMPTS


def _charge_outcome(
    auth: SandboxAuthorization | None, reference: str
) -> tuple[str, str, str]:
    """(status, failure reason, gateway response) of charging `auth` under
    `reference`."""
    if auth is None:
        return (
            "failed",
            FailureReason.AUTHORIZATION_REVOKED,
            "Authorization code is invalid",
        )
    if not auth.reusable:
        return (
            "failed",
            FailureReason.DECLINED,
            "This authorization cannot be charged again",
        )
    if auth.revoked_at is not None:
        return (
            "failed",
            FailureReason.AUTHORIZATION_REVOKED,
            "Authorization has been revoked by the customer's bank",
        )
    if _expired(auth):
        return "failed", FailureReason.CARD_EXPIRED, "Expired Card"
    if auth.behaviour in _SHORT_OF_MONEY or (
        auth.behaviour == SandboxAuthorization.Behaviour.FAILS_TWICE
        and _fails_for_now(reference)
    ):
        return "failed", FailureReason.INSUFFICIENT_FUNDS, "Insufficient Funds"
    return "success", "", "Approved"


_SHORT_OF_MONEY = (
    SandboxAuthorization.Behaviour.INSUFFICIENT_FUNDS,
    SandboxAuthorization.Behaviour.PARTIAL_FUNDS,
)


def _available(auth: SandboxAuthorization | None, amount: int, reference: str) -> int:
    """What a partial debit of `amount` finds on `auth`: all of it on a card
    whose charges succeed, PARTIAL_FUNDS_PERCENT of it on the partial-funds
    card (rounded down), nothing on the others."""
    if _charge_outcome(auth, reference)[0] == "success":
        return amount
    partial = SandboxAuthorization.Behaviour.PARTIAL_FUNDS
    if _charge_outcome(auth, reference)[1] == FailureReason.INSUFFICIENT_FUNDS and (
        auth.behaviour == partial
    ):
        return amount * PARTIAL_FUNDS_PERCENT // 100
    return 0


def _expired(auth: SandboxAuthorization) -> bool:
    """A card is good until the end of its expiry month (Lagos time; the
    sandbox clock's day while it runs a plan forward)."""
    if not auth.exp_year:
        return False
    today = sandbox_today()
    return (int(auth.exp_year), int(auth.exp_month)) < (today.year, today.month)


def _expiry(number: str) -> dict:
    """A test card's expiry: the end of this month for the card that expires,
    December three years on for the others."""
    today = timezone.localdate()
    if number == CARD_EXPIRES_THIS_MONTH:
        return {"exp_month": f"{today.month:02d}", "exp_year": str(today.year)}
    return {"exp_month": "12", "exp_year": str(today.year + 3)}


class SandboxProcessor(
    SandboxBankCharges,
    SandboxDisputes,
    SandboxOfflineCharges,
    SandboxPayouts,
    SandboxRefunds,
    Processor,
):
    name = "sandbox"

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
        try:
            with transaction.atomic():
                SandboxTransaction.objects.create(
                    reference=reference,
                    kind=SandboxTransaction.Kind.CARD_CHECKOUT,
                    email=email,
                    amount=amount,
                    currency=currency,
                    callback_url=callback_url,
                    metadata=metadata or {},
                )
        except IntegrityError:
            raise _duplicate_reference() from None
        return InitializedTransaction(
            reference=reference,
            authorization_url=_page_url("sandbox-authorize", reference),
            access_code=random_token(64),
        )

    def authorize_card(self, *, reference: str, card_number: str) -> SandboxTransaction:
        """The card form of /sandbox/authorize/<reference> was submitted.

        A transaction already decided stays as it is (a second submit, e.g. a
        browser's back button, changes nothing)."""
        number = "".join(card_number.split()).replace("-", "")
        if number not in CARDS:
            raise SandboxInputError(
                "This is not a sandbox test card: use 4084084084084081, "
                "4084080000000409, 4084080000005408, 4084080000000011, "
                f"4084080000000060, {CARD_FAILS_TWICE}, {CARD_DISPUTED} or "
                "4000000000000002."
            )
        with transaction.atomic():
            row = SandboxTransaction.objects.select_for_update().get(
                reference=reference, kind=SandboxTransaction.Kind.CARD_CHECKOUT
            )
            if row.status != SandboxTransaction.Status.PENDING:
                return row
            behaviour = CARDS[number]
            row.card_last4 = number[-4:]
            if behaviour is None:
                outcome = SandboxTransaction.Status.FAILED
                row.gateway_response = "Declined"
            else:
                outcome = SandboxTransaction.Status.SUCCESS
                row.gateway_response = "Approved"
                row.authorization = _authorization_create(
                    row,
                    channel="card",
                    signature="SIG_" + hashlib.sha256(number.encode()).hexdigest()[:20],
                    brand=card_brand(number),
                    last4=number[-4:],
                    **_expiry(number),
                    behaviour=behaviour,
                )
            row.transition_to(
                outcome,
                update_fields=["card_last4", "gateway_response", "authorization"],
            )
        return row

    def verify_transaction(self, *, reference):
        _network_latency()
        row = (
            SandboxTransaction.objects.select_related("authorization")
            .filter(reference=reference)
            .first()
        )
        if row is None:
            return None
        status = {
            "success": TransactionStatus.SUCCESS,
            "failed": TransactionStatus.FAILED,
        }.get(row.status, TransactionStatus.ABANDONED)
        gateway_response = row.gateway_response
        if row.kind == SandboxTransaction.Kind.BANK_CHARGE and status not in (
            TransactionStatus.SUCCESS,
            TransactionStatus.FAILED,
        ):
            status = TransactionStatus.PENDING
        if row.kind == SandboxTransaction.Kind.OFFLINE_CHARGE:
            status, gateway_response = offline_verified(row)
        return TransactionResult(
            reference=row.reference,
            status=status,
            amount=row.amount,
            currency=row.currency,
            gateway_response=gateway_response,
            failure_reason=row.metadata.get("failure_reason", "")
            or (FailureReason.DECLINED if status == TransactionStatus.FAILED else ""),
            processor_id=str(row.pk),
            paid_at=row.updated_at if status == TransactionStatus.SUCCESS else None,
            authorization=self._authorization(row.authorization)
            if row.authorization
            else None,
            channel=transaction_channel(row),
        )

    @staticmethod
    def _authorization(auth: SandboxAuthorization) -> Authorization:
        return Authorization(
            authorization_code=auth.authorization_code,
            channel=auth.channel,
            signature=auth.signature,
            brand=auth.brand,
            last4=auth.last4,
            exp_month=auth.exp_month,
            exp_year=auth.exp_year,
            bank=auth.bank_code,
            reusable=auth.reusable,
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
        _network_latency()
        auth = _AUTHORIZATION.first(authorization_code=authorization_code)
        return self._debit(
            auth,
            email,
            amount,
            reference,
            currency,
            metadata,
            _charge_outcome(auth, reference),
        )

    def partial_debit(
        self, *, email, amount, at_least, authorization_code, reference, currency="NGN"
    ):
        _network_latency()
        auth = _AUTHORIZATION.first(authorization_code=authorization_code)
        available = _available(auth, amount, reference)
        if available and available >= at_least:
            outcome, taken = ("success", "", "Approved"), available
        else:
            outcome, taken = _charge_outcome(auth, reference), amount
            if outcome[0] == "success" or available:
                # Some money, but less than `at_least`.
                outcome = (
                    "failed",
                    FailureReason.INSUFFICIENT_FUNDS,
                    "Insufficient Funds",
                )
        return self._debit(
            auth,
            email,
            taken,
            reference,
            currency,
            {"partial_debit": True, "requested": amount, "at_least": at_least},
            outcome,
        )

    def _debit(self, auth, email, amount, reference, currency, metadata, outcome):
        """One charge of a saved authorization, recorded under `reference`."""
        status, reason, text = outcome
        row = SandboxTransaction(
            reference=reference,
            kind=SandboxTransaction.Kind.AUTHORIZATION_CHARGE,
            email=email,
            amount=amount,
            currency=currency,
            status=status,
            gateway_response=text,
            authorization=auth,
            card_last4=auth.last4 if auth else "",
            metadata={**(metadata or {}), "failure_reason": reason},
        )
        try:
            # Every auto-debit charge comes here: an insert with its SQL written
            # once (config/db/rows.py), atomic on its own.
            insert_row(row)
        except IntegrityError:
            raise _duplicate_reference() from None
        return TransactionResult(
            reference=reference,
            status=status,
            amount=amount,
            currency=currency,
            gateway_response=text,
            failure_reason=reason,
            processor_id=str(row.pk),
            paid_at=row.created_at if status == "success" else None,
            authorization=self._authorization(auth) if auth else None,
        )

    # -- mandates ----------------------------------------------------------

    def list_revoked_mandates(self):
        return [
            RevokedMandate(
                authorization_code=auth.authorization_code,
                account_number=auth.account_number,
                bank_code=auth.bank_code,
            )
            for auth in SandboxAuthorization.objects.filter(
                revoked_at__isnull=False
            ).order_by("pk")
        ]

    def deactivate_authorization(self, *, authorization_code: str) -> None:
        self.revoke_authorization(authorization_code=authorization_code)

    def revoke_authorization(self, *, authorization_code: str) -> bool:
        """Sandbox only: the bank or issuer withdraws an authorization (the
        nightly poll then reports it, and charges on it fail)."""
        return bool(
            SandboxAuthorization.objects.filter(
                authorization_code=authorization_code, revoked_at__isnull=True
            ).update(revoked_at=timezone.now())
        )
