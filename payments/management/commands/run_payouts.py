"""`python manage.py run_payouts`: pay every merchant due a payout now.

The same pass the daily django-q2 schedule runs (`payments-run-payouts`): stale
open payouts are verified at the processor first, then each active merchant with
a payout account and at least 100,000 kobo available gets one payout.
"""

from django.core.management.base import BaseCommand

from config.progress import ProgressLine
from payments.payouts.services import payouts_run


class Command(BaseCommand):
    help = "Pay out every merchant's available balance (at least 100,000 kobo)."

    def add_arguments(self, parser):
        parser.add_argument(
            "--merchant",
            action="append",
            dest="merchants",
            metavar="MERCHANT_ID",
            help="Only this merchant (mer_...); may be repeated.",
        )

    def handle(self, *args, merchants=None, **options):
        progress = ProgressLine(self.stdout)
        run = payouts_run(
            merchant_ids=merchants,
            progress=lambda done, total: progress.update(done, total, "merchants"),
        )
        progress.finish()
        self.stdout.write(
            f"run_payouts: {len(run.created)} payout(s) made, {run.rechecked} open "
            f"payout(s) rechecked, {run.errors} error(s)."
        )
        for public_id in run.created:
            self.stdout.write(f"  {public_id}")
