"""The registry of ledger checks: invariants `python manage.py check_ledger`
verifies besides the ledger's own. A lower app never imports a higher one
(DESIGN section 1), so `installments` registers its checks here in its
AppConfig.ready() (e.g. "each paid installment has exactly one collection")."""

from collections.abc import Callable, Iterable
from dataclasses import dataclass

# A check yields one readable sentence per breach found (nothing when clean),
# on the side it is given: check(livemode).
LedgerCheck = Callable[[bool], Iterable[str]]


@dataclass(frozen=True)
class NamedLedgerCheck:
    name: str
    check: LedgerCheck


_ledger_checks: dict[str, NamedLedgerCheck] = {}


def register_ledger_check(check: LedgerCheck, *, name: str | None = None) -> None:
    """Add an invariant to `check_ledger`; registering a name again replaces it."""
    name = name or getattr(check, "__name__", repr(check))
    _ledger_checks[name] = NamedLedgerCheck(name=name, check=check)


def unregister_ledger_check(name: str) -> None:
    _ledger_checks.pop(name, None)


def ledger_checks() -> tuple[NamedLedgerCheck, ...]:
    return tuple(_ledger_checks.values())
