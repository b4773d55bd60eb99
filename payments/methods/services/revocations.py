"""Processor revocations: a bank or card issuer withdrew an authorization.

Three feeds reach the same handler: endpoint 25 (webhook), the nightly poll of
revoked mandates (Paystack publishes no mandate-revocation webhook), and a charge
whose failure says the authorization is no longer valid. The handler deactivates
the method (it stays listed as inactive and is never charged again), chooses a
new default, and calls the revocation handlers higher apps registered (the
customer's score). A unique (kind, key) row makes each revocation take effect
once, whichever feed brings it and however often.
"""

from dataclasses import dataclass
from datetime import datetime

from django.db import IntegrityError, transaction
from django.utils import timezone

from config.api.errors import InvalidRequest

from ...customers.models import Customer
from ...gateway.models import InboundRequest, ProcessorEvent
from ...gateway.processors import (
    FailureReason,
    TransactionResult,
    get_processor,
    sandbox_processor,
)
from ..hooks import RevokedPaymentMethod, notify_revocation
from ..models import PaymentMethod, secret_digest
from .methods import promote_newest_default

REVOCATION_EVENTS = frozenset(
    {
        "authorization.revoked",
        "mandate.cancelled",
        "direct_debit.authorization.deactivated",
    }
)
POLL_EVENT = "mandate_authorizations.revoked"
CHARGE_FAILURE_EVENT = "charge.authorization_invalid"
CHARGE_FAILURE_EVENTS = {
    FailureReason.AUTHORIZATION_REVOKED: CHARGE_FAILURE_EVENT,
    FailureReason.INVALID_ACCOUNT: "charge.account_invalid",
}


class Source:
    WEBHOOK = "webhook"
    POLL = "poll"
    CHARGE_FAILURE = "charge_failure"


@dataclass(frozen=True)
class RevocationOutcome:
    duplicate: bool
    methods: tuple[PaymentMethod, ...] = ()


def revocation_handle(
    *,
    authorization_code: str,
    event: str,
    source: str,
    inbound: InboundRequest | None = None,
) -> RevocationOutcome:
    """Deactivate every active method holding this authorization, once.

    Not durable: an auto-debit may call this inside its own transaction.
    """
    key = secret_digest(authorization_code)
    now = timezone.now()
    with transaction.atomic():
        try:
            with transaction.atomic():
                ProcessorEvent.objects.create(
                    kind="revocation",
                    key=key,
                    event=event[:100],
                    source=source,
                    inbound=inbound,
                )
        except IntegrityError:
            return RevocationOutcome(duplicate=True)
        customer_pks = sorted(
            set(
                PaymentMethod.objects.filter(
                    authorization_code_hash=key, status=PaymentMethod.Status.ACTIVE
                ).values_list("customer_id", flat=True)
            )
        )
        revoked: list[PaymentMethod] = []
        for customer_pk in customer_pks:
            revoked += _customer_revoke(
                customer_pk, key=key, event=event, source=source, at=now
            )
    return RevocationOutcome(duplicate=False, methods=tuple(revoked))


def _customer_revoke(
    customer_pk: int, *, key: str, event: str, source: str, at: datetime
) -> list[PaymentMethod]:
    """Revoke the customer's active methods with this authorization (their row
    locked), choose a new default, and tell the registered handlers."""
    customer = Customer.objects.select_for_update().get(pk=customer_pk)
    methods = list(
        PaymentMethod.objects.select_for_update().filter(
            customer=customer,
            authorization_code_hash=key,
            status=PaymentMethod.Status.ACTIVE,
        )
    )
    # The sides whose default goes (the same authorization is one side's).
    default_sides = {method.livemode for method in methods if method.is_default}
    for method in methods:
        method.is_default = False
        method.revocation_reason = event[:64]
        method.transition_to(
            PaymentMethod.Status.REVOKED,
            at=at,
            update_fields=["is_default", "revocation_reason"],
        )
    for livemode in default_sides:
        promote_newest_default(customer, livemode=livemode)
    for method in methods:
        notify_revocation(
            RevokedPaymentMethod(
                customer_pk=customer.pk,
                customer_id=customer.public_id,
                payment_method_pk=method.pk,
                payment_method_id=method.public_id,
                revoked_at=at,
                event=event,
                source=source,
            )
        )
    return methods


def revocation_event_handle(*, inbound: InboundRequest, payload: dict) -> str:
    """Endpoint 25: `{event, data: {authorization_code, ...}}`. Answers
    "handled", "duplicate" or "ignored" (an event this endpoint does not act on)."""
    event, data = payload.get("event"), payload.get("data")
    if not isinstance(event, str) or not isinstance(data, dict):
        raise InvalidRequest(
            "The body must be a JSON object with 'event' (a string) and 'data' "
            "(an object)."
        )
    if event not in REVOCATION_EVENTS:
        return "ignored"
    code = _authorization_code(data)
    if not code or "\x00" in code:
        raise InvalidRequest(
            "data.authorization_code (a string) is required for revocation events."
        )
    outcome = revocation_handle(
        authorization_code=code, event=event, source=Source.WEBHOOK, inbound=inbound
    )
    return "duplicate" if outcome.duplicate else "handled"


def _authorization_code(data: dict) -> str:
    code = data.get("authorization_code")
    nested = data.get("authorization")
    if not code and isinstance(nested, dict):
        code = nested.get("authorization_code")
    return code.strip() if isinstance(code, str) else ""


def revocation_from_charge_failure(
    *, authorization_code: str, result: TransactionResult
) -> bool:
    """A charge refused because the authorization is no longer valid, or the
    bank account behind it is closed, revokes the method like a webhook would.
    True when it was such a refusal."""
    event = CHARGE_FAILURE_EVENTS.get(result.failure_reason)
    if result.succeeded or event is None:
        return False
    revocation_handle(
        authorization_code=authorization_code,
        event=event,
        source=Source.CHARGE_FAILURE,
    )
    return True


def revoked_mandates_poll() -> int:
    """Nightly: the processor's revoked mandates; returns how many methods this
    run deactivated (mandates handled before are skipped by the unique key)."""
    deactivated = 0
    # Both sides: the live processor's mandates, and the sandbox's (the test
    # side's) where the live processor is another one.
    processors = {get_processor().name: get_processor()}
    processors.setdefault("sandbox", sandbox_processor())
    for processor in processors.values():
        for mandate in processor.list_revoked_mandates():
            outcome = revocation_handle(
                authorization_code=mandate.authorization_code,
                event=POLL_EVENT,
                source=Source.POLL,
            )
            deactivated += len(outcome.methods)
    return deactivated
