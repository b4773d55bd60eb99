from io import StringIO

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand

from checkout import demo
from config.progress import ProgressLine
from merchants import demo as accounts

RESET_COMMAND = "make demo-password"


class Command(BaseCommand):
    help = (
        "Create the demo staff user and the demo merchant (approved, API access) "
        "and seed the merchant's last month of business on the sandbox: plans in "
        "every state, collections, failures, a default, refunds, webhook "
        "deliveries and payouts. A second run adds nothing. Passwords are "
        "printed once, when created; --reset-password prints a new one."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--reset-password",
            action="store_true",
            help="Give the demo merchant a new password and print it (nothing else).",
        )

    def handle(self, *args, reset_password=False, **opts):
        if reset_password:
            merchant, password = accounts.demo_password_reset()
            self.credentials(merchant, password)
            return
        if demo.month_needed() and not demo.sandbox_in_use():
            self.stdout.write(
                "The demo month is seeded on the sandbox processor only "
                "(PROCESSOR=sandbox): accounts only."
            )
        elif demo.month_needed():
            self.stdout.write("Seeding the demo merchant's last 30 days...")
        progress = ProgressLine(self.stdout)
        seeded = demo.seed(lambda done, total: progress.update(done, total, "days"))
        progress.finish()
        if seeded.played:
            ledger = StringIO()
            call_command("check_ledger", stdout=ledger)
            self.stdout.write(
                f"Demo data: {demo.summary(seeded.merchant)}. "
                f"{seeded.emails} e-mails and {seeded.texts} text messages of the "
                "month were kept out of the console. "
                f"{ledger.getvalue().strip().splitlines()[-1]}"
            )
        else:
            self.stdout.write(
                f"Demo data already there: {demo.summary(seeded.merchant)}."
            )
        if seeded.staff_password:
            self.stdout.write(
                f"Staff user for /admin/: {accounts.STAFF_USERNAME} / "
                f"{seeded.staff_password} (lost it? manage.py changepassword "
                f"{accounts.STAFF_USERNAME})"
            )
        self.credentials(seeded.merchant, seeded.password, test_key=seeded.test_key)

    def credentials(self, merchant, password, *, test_key=None) -> None:
        """The demo merchant's sign-in and test key, last and boxed, so they
        stand out."""
        shown = password or "(printed when it was created)"
        lines = [
            f"Demo merchant {merchant.public_id}: sign in at "
            f"{settings.BASE_URL}/dashboard/login/",
            f"  email:    {merchant.email}",
            f"  password: {shown}",
        ]
        if test_key:
            # Test data only, on the sandbox processor (docs/test-mode.md):
            # the key to try the API's examples with, shown this once.
            lines.append(f"  test key: {test_key}")
        lines.append(f"Lost the password? `{RESET_COMMAND}` prints a new one.")
        width = max(map(len, lines))
        rule = "+" + "-" * (width + 2) + "+"
        self.stdout.write("")
        self.stdout.write(self.style.SUCCESS(rule))
        for line in lines:
            self.stdout.write(self.style.SUCCESS(f"| {line.ljust(width)} |"))
        self.stdout.write(self.style.SUCCESS(rule))
        self.stdout.write("")
