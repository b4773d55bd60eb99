"""Re-encrypt every EncryptedTextField value with the first FIELD_ENCRYPTION_KEY.

Key rotation (docs/operations.md): put the new key first and keep the old one after
it (`FIELD_ENCRYPTION_KEY=new,old`), deploy, run this command, then drop the old
key. Safe to re-run and to run while the service is up: each row is rewritten on
its own, and a row written meanwhile is already under the new key.
"""

from django.apps import apps
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from config.db.encryption import EncryptedTextField

BATCH = 500


def encrypted_fields():
    """(model, [field names]) for every model holding encrypted values."""
    for model in apps.get_models():
        names = [
            field.name
            for field in model._meta.get_fields()
            if isinstance(field, EncryptedTextField)
        ]
        if names:
            yield model, names


class Command(BaseCommand):
    help = "Re-encrypt stored secrets with the first key of FIELD_ENCRYPTION_KEY."

    def handle(self, *args, **options):
        for model, names in encrypted_fields():
            label = f"{model._meta.label} ({', '.join(names)})"
            count = 0
            pks = model._base_manager.order_by("pk").values_list("pk", flat=True)
            for pk in pks.iterator(chunk_size=BATCH):
                try:
                    with transaction.atomic():
                        row = (
                            model._base_manager.select_for_update()
                            .only("pk", *names)
                            .get(pk=pk)
                        )
                        # Reading decrypted with any key; writing encrypts with
                        # the first.
                        model._base_manager.filter(pk=pk).update(
                            **{name: getattr(row, name) for name in names}
                        )
                except ValueError as error:
                    raise CommandError(
                        f"{label} row {pk}: {error}; is the old key still listed "
                        "in FIELD_ENCRYPTION_KEY?"
                    ) from None
                count += 1
            self.stdout.write(f"{label}: {count} rows re-encrypted")
