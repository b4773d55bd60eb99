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
