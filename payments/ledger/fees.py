"""The platform fee: 2.5% of every collected payment, rounded half up, in kobo.

The one place the fee rule is written (DESIGN section 8).
"""

FEE_PER_MILLE = 25


def platform_fee(amount: int) -> int:
    if isinstance(amount, bool) or not isinstance(amount, int) or amount < 0:
        raise ValueError("amount is a non-negative integer of kobo")
    return (amount * FEE_PER_MILLE + 500) // 1000


def merchant_net(amount: int) -> int:
    return amount - platform_fee(amount)


def fee_given_back(*, remaining: int, refunded: int) -> int:
    """The fee the platform gives back when a collection that has `remaining`
    left (collected minus what refunds took) is refunded by `refunded` more:
    `fee(remaining) - fee(remaining - refunded)`, so the fee kept on a collection
    is always the fee of what it has left (DESIGN section 14). Money coming back
    from a failed refund is the same rule read backwards:
    `fee_given_back(remaining=r + x, refunded=x)` is kept again."""
    if refunded < 0 or refunded > remaining:
        raise ValueError("a refund is between 0 and what the collection has left")
    return platform_fee(remaining) - platform_fee(remaining - refunded)
