"""The one table of decline reasons (DESIGN section 15; docs/auto-debit.md).

Every declined charge is classed here, and only here: the auto-debit engine,
the deposit at checkout and early payments read the same rows. A **soft**
decline may succeed later on the same method (the retry schedule of section 7
applies); a **hard** one never will: the method is taken out of charging (an
expired card is marked expired, a revoked authorization or a closed account is
deactivated) and the customer's other methods are tried instead.

Lives in the gateway, the lowest layer that names a processor's answers, so
the payment methods (which retire a method after a hard decline) read it as
well as the apps above them.
"""

from dataclasses import dataclass

from .processors.base import FailureReason

# What a hard decline does to the method it came from.
EXPIRE = "expire"  # the card is marked expired
DEACTIVATE = "deactivate"  # the authorization is revoked (the revocation code)


@dataclass(frozen=True)
class Decline:
    reason: str  # the `payment.failed` reason
    retryable: bool  # soft: retried on the schedule; hard: never on the same method
    method_effect: str  # EXPIRE, DEACTIVATE or "" (nothing to do to the method)
    text: str  # for the customer, after a colon: "insufficient funds"
    clause: str  # for the customer, after "but": "there were not enough funds"

    @property
    def hard(self) -> bool:
        return not self.retryable


NO_PAYMENT_METHOD = "no_payment_method"
# A bank transfer or USSD payment the customer did not complete in time
# (DESIGN section 17): nothing was wrong with any method, they may pay again.
EXPIRED = "expired"
GENERIC = FailureReason.DO_NOT_HONOR

DECLINES: dict[str, Decline] = {
    row.reason: row
    for row in (
        Decline(
            FailureReason.INSUFFICIENT_FUNDS,
            True,
            "",
            "insufficient funds",
            "there were not enough funds",
        ),
        Decline(
            FailureReason.DO_NOT_HONOR,
            True,
            "",
            "the bank declined it",
            "the bank declined the charge",
        ),
        Decline(
            FailureReason.PROCESSOR_ERROR,
            True,
            "",
            "the payment processor could not take it",
            "the payment processor could not take the charge",
        ),
        Decline(
            FailureReason.CARD_EXPIRED,
            False,
            EXPIRE,
            "the card has expired",
            "the card has expired",
        ),
        Decline(
            FailureReason.AUTHORIZATION_REVOKED,
            False,
            DEACTIVATE,
            "the bank or card issuer revoked the authorization",
            "the bank or card issuer withdrew the authorization",
        ),
        Decline(
            FailureReason.INVALID_ACCOUNT,
            False,
            DEACTIVATE,
            "the bank account is closed or does not exist",
            "the bank account is closed or does not exist",
        ),
        Decline(
            EXPIRED,
            True,
            "",
            "the time to pay it ran out",
            "the time to pay it ran out",
        ),
        Decline(
            NO_PAYMENT_METHOD,
            False,
            "",
            "there is no active payment method",
            "there is no active payment method on your account",
        ),
    )
}

# A processor's answers that are not reasons of their own: a generic decline
# is the bank's refusal without a reason; a charge never answered (timeout) and
# never found is the processor's failure. Anything else unknown is generic.
ALIASES = {
    FailureReason.DECLINED: GENERIC,
    "timeout": FailureReason.PROCESSOR_ERROR,
    "processor_timeout": FailureReason.PROCESSOR_ERROR,
}

# The closed list of `payment.failed` reasons (docs/webhooks.md).
REASONS = frozenset(DECLINES)


def decline_of(reason: str) -> Decline:
    """The row of a processor's (or the engine's) reason; unknown ones are the
    bank's generic refusal (soft)."""
    return DECLINES.get(ALIASES.get(reason, reason)) or DECLINES[GENERIC]
