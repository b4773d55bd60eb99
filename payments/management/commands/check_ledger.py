"""`python manage.py check_ledger`: verify the ledger's invariants.

Prints every breach and exits with status 1 when there is any, 0 when the books
are clean (usable in cron and CI).
"""

from django.core.management.base import BaseCommand, CommandError

from config.progress import ProgressLine
from payments.gateway import ledger_checks as gateway_checks
from payments.ledger import checks as ledger_checks
from payments.ledger.hooks import NamedLedgerCheck
from payments.ledger.hooks import ledger_checks as registered
from payments.payouts import ledger_checks as payout_checks


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
        "their postings, plus the checks other apps registered. Exits 1 on a breach."
    )

    def handle(self, *args, **options):
        checks = all_checks()
        progress = ProgressLine(self.stdout)
        breaches = 0
        for number, named in enumerate(checks, start=1):
            progress.update(number - 1, len(checks), named.name)
            found = 0
            for breach in named.check():
                progress.finish()
                self.stdout.write(f"BREACH [{named.name}] {breach}")
                found += 1
            breaches += found
        progress.update(len(checks), len(checks), "done")
        progress.finish()
        if breaches:
            raise CommandError(
                f"check_ledger: {breaches} breach(es) in {len(checks)} checks.",
                returncode=1,
            )
        self.stdout.write(f"check_ledger: clean ({len(checks)} checks).")
