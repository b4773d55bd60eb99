from django.core.management.base import BaseCommand

from config import schedules


class Command(BaseCommand):
    help = "Create or update the django-q2 schedules declared in code (idempotent)."

    def handle(self, *args, **options):
        for name, created in schedules.sync():
            self.stdout.write(f"{'created' if created else 'updated'}: {name}")
