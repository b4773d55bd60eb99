"""`python manage.py purge_records`: the records retention purge, by hand (the
daily `installments-purge-records` schedule runs the same). Deletes the plans
whose records are past `RECORDS_RETENTION_YEARS` and the customers left with
nothing (installments/retention/). A progress line on a terminal, a summary
line at the end; safe to stop and run again."""

from django.core.management.base import BaseCommand, CommandError

from config.progress import ProgressLine

from ...retention.services import PLANS_PER_BATCH, records_purge


class Command(BaseCommand):
    help = (
        "Delete the records of plans that ended more than RECORDS_RETENTION_YEARS "
        "ago, and the customers left with nothing."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--batch-size",
            type=int,
            default=PLANS_PER_BATCH,
            help=f"Plans deleted per transaction (default {PLANS_PER_BATCH}).",
        )

    def handle(self, *args, **options):
        if options["batch_size"] < 1:
            raise CommandError("--batch-size must be at least 1.")
        progress = ProgressLine(self.stdout)
        try:
            summary = records_purge(
                plans_per_batch=options["batch_size"], progress=progress.update
            )
        finally:
            progress.finish()
        self.stdout.write(summary.line())
