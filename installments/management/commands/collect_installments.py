"""`python manage.py collect_installments [--date YYYY-MM-DD]`: one collection
pass, by hand (the django-q2 schedule runs the same pass every 5 minutes).

Without `--date` it collects what is due now; with it, everything due by the end
of that Lagos date (installments due on or before it, retries whose time has
come by then). Attempts left in flight for more than 10 minutes are settled
either way. A progress line on a terminal, a summary line at the end.
"""

from argparse import ArgumentTypeError
from datetime import date

from django.core.management.base import BaseCommand, CommandError

from config.progress import ProgressLine

from ...collection import BATCH_SIZE, collect_due, due_count


def _date(value: str) -> date:
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise ArgumentTypeError(f"must be YYYY-MM-DD, not {value!r}") from None


class Command(BaseCommand):
    help = (
        "Collect the installments that are due (by now, or by the end of --date) "
        "and settle attempts left in flight."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--date",
            type=_date,
            default=None,
            help="Collect as of the end of this Lagos date (YYYY-MM-DD).",
        )
        parser.add_argument(
            "--batch-size",
            type=int,
            default=BATCH_SIZE,
            help=f"Installments claimed per batch (default {BATCH_SIZE}).",
        )

    def handle(self, *args, **options):
        on_date = options["date"]
        if options["batch_size"] < 1:
            raise CommandError("--batch-size must be at least 1.")
        progress = ProgressLine(self.stdout)
        total = due_count(on_date=on_date) if progress.enabled else 0

        def show(summary):
            progress.update(
                min(summary.claimed, total),
                total,
                f"{summary.tally.paid} paid, {summary.tally.failed} failed",
            )

        if progress.enabled:
            progress.update(0, total, "claiming")
        summary = collect_due(
            on_date=on_date, batch_size=options["batch_size"], progress=show
        )
        progress.finish()
        as_of = f"end of {on_date.isoformat()}" if on_date else "now"
        self.stdout.write(f"collect_installments (due by {as_of}): {summary.line()}")
