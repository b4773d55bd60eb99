from django.core.management.base import BaseCommand, CommandError

from merchants import selectors, services
from merchants.models import Merchant


class Command(BaseCommand):
    help = (
        "Approve a merchant (status active, approval e-mail once). Safe to re-run: "
        "re-running with --enable-api-access on an approved merchant enables access."
    )

    def add_arguments(self, parser):
        parser.add_argument("email")
        parser.add_argument("--enable-api-access", action="store_true")
        parser.add_argument("--rate-plan", choices=Merchant.RatePlan.values)

    def handle(self, *args, email, enable_api_access, rate_plan, **options):
        merchant = selectors.merchant_by_email(email)
        if merchant is None:
            raise CommandError(f"No merchant is registered with the e-mail {email}.")
        merchant = services.merchant_approve(merchant=merchant)
        if enable_api_access:
            merchant = services.merchant_set_api_access(merchant=merchant, enabled=True)
        if rate_plan:
            merchant = services.merchant_set_rate_plan(
                merchant=merchant, rate_plan=rate_plan
            )
        self.stdout.write(
            self.style.SUCCESS(
                f"{merchant.public_id} {merchant.email}: status={merchant.status} "
                f"api_access_enabled={merchant.api_access_enabled} "
                f"rate_plan={merchant.rate_plan}"
            )
        )
