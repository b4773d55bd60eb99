import secrets

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.db import transaction

from merchants import selectors, services
from merchants.models import Merchant

STAFF_USERNAME = "admin"
DEMO_MERCHANT_EMAIL = "demo-merchant@example.com"


class Command(BaseCommand):
    help = (
        "Create a demo staff user and a demo approved merchant with API access. "
        "Their generated passwords are printed once, when they are created."
    )

    def handle(self, *args, **options):
        User = get_user_model()
        with transaction.atomic():
            if User.objects.filter(username=STAFF_USERNAME).exists():
                self.stdout.write(f"Staff user '{STAFF_USERNAME}' already exists.")
            else:
                password = secrets.token_urlsafe(12)
                User.objects.create_superuser(
                    STAFF_USERNAME, "admin@example.com", password
                )
                self.stdout.write(
                    self.style.SUCCESS(
                        f"Staff user for /admin/: {STAFF_USERNAME} / {password}"
                    )
                )
        if selectors.merchant_by_email(DEMO_MERCHANT_EMAIL) is not None:
            self.stdout.write(f"Demo merchant {DEMO_MERCHANT_EMAIL} already exists.")
            return
        password = secrets.token_urlsafe(12)
        merchant = services.merchant_register(
            email=DEMO_MERCHANT_EMAIL,
            password=password,
            business_name="Demo Store",
            business_url="https://demo-store.example.com",
        )
        merchant = services.merchant_approve(merchant=merchant)
        services.merchant_set_api_access(merchant=merchant, enabled=True)
        assert merchant.status == Merchant.Status.ACTIVE
        self.stdout.write(
            self.style.SUCCESS(
                f"Demo merchant {merchant.public_id}: {DEMO_MERCHANT_EMAIL} / "
                f"{password} (approved, API access enabled)"
            )
        )
