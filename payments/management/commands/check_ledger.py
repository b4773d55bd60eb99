"""`python manage.py check_ledger`: verify the ledger's invariants.

Prints every breach and exits with status 1 when there is any, 0 when the books
are clean (usable in cron and CI). Each side's books are checked on their own
(test mode, DESIGN section 21): `--side live`, `--side test` or `--side both`
(the default: live, then test, each reported on its own), every check comparing
that side's accounts with that side's records only.
"""

from django.core.management.base import BaseCommand, CommandError

from config.progress import ProgressLine
from payments.gateway import ledger_checks as gateway_checks
from payments.ledger import checks as ledger_checks
from payments.ledger.hooks import NamedLedgerCheck
from payments.ledger.hooks import ledger_checks as registered
from payments.payouts import ledger_checks as payout_checks

# --side: the sides it checks, each by its livemode.
SIDES = {"live": (True,), "test": (False,), "both": (True, False)}


def all_checks() -> tuple[NamedLedgerCheck, ...]:
    """The ledger's own checks, then those of payouts and the gateway, then the
    ones higher apps registered."""
    return (
        *ledger_checks.BUILT_IN,
        *payout_checks.CHECKS,
        *gateway_checks.CHECKS,
        *registered(),
    )


class Command(BaseCommand):
    help = (
        "Verify the ledger: every transaction balances, wallets and payouts match "
        "their postings, plus the checks other apps registered, on each side "
        "(live, test) on its own. Exits 1 on a breach."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--side",
            choices=sorted(SIDES),
            default="both",
            help="The side whose books to check (default: both, each on its own).",
        )

    def _check_side(self, checks, livemode: bool) -> int:
        side = "live" if livemode else "test"
        progress = ProgressLine(self.stdout)
        breaches = 0
        for number, named in enumerate(checks, start=1):
            progress.update(number - 1, len(checks), f"{side}: {named.name}")
            for breach in named.check(livemode):
                progress.finish()
                self.stdout.write(f"BREACH {side} [{named.name}] {breach}")
                breaches += 1
        progress.update(len(checks), len(checks), f"{side}: done")
        progress.finish()
        if breaches:
            self.stdout.write(f"{side}: {breaches} breach(es) in {len(checks)} checks.")
        else:
            self.stdout.write(f"{side}: clean ({len(checks)} checks).")
        return breaches

    def handle(self, *args, **options):
        checks = all_checks()
        sides = SIDES[options["side"]]
        breaches = sum(self._check_side(checks, livemode) for livemode in sides)
        names = ", ".join("live" if livemode else "test" for livemode in sides)
        if breaches:
            raise CommandError(
                f"check_ledger: {breaches} breach(es) in {len(checks)} checks "
                f"on each side ({names}).",
                returncode=1,
            )
        self.stdout.write(
            f"check_ledger: clean ({len(checks)} checks on each side: {names})."
        )
