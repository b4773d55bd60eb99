"""The kept balances' check (balances.py), run by `check_ledger` with the
ledger's own (checks.py): each kept balance equals its lines, on one side."""

from collections.abc import Iterator

from merchants.models import Merchant

from .balances import kept_differences
from .models import TEST_PREFIX, WALLET_PREFIX


def _kept_side(account: str, merchant_pk: int, test_merchants: set[int]) -> bool:
    """The side of a kept balance's key: a `test:` account is the test side's, a
    wallet its merchant row's (the key's merchant is the wallet's own, or
    `accounts_known` says otherwise), any other account the live side's."""
    if account.startswith(TEST_PREFIX):
        return False
    if account.startswith(WALLET_PREFIX):
        return merchant_pk not in test_merchants
    return True


def kept_balances_match(livemode: bool) -> Iterator[str]:
    """Every kept balance (balances.py) of the side holds exactly the sum and
    the number of its lines through the newest checkpoint, and no lines
    through it are left out of one; a difference names the account."""
    differences = kept_differences()
    test_merchants = set(
        Merchant.objects.filter(
            pk__in={row[1] for row in differences}, livemode=False
        ).values_list("pk", flat=True)
    )
    for (
        account,
        merchant_pk,
        kind,
        kept,
        kept_n,
        summed,
        summed_n,
    ) in differences:
        if _kept_side(account, merchant_pk, test_merchants) != livemode:
            continue
        whose = f"merchant #{merchant_pk}'s " if merchant_pk else ""
        yield (
            f"kept balance of {account} ({whose}{kind} lines) is {kept} over "
            f"{kept_n} line(s), but its lines sum to {summed} over {summed_n}"
        )
