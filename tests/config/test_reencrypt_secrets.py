"""Rotating FIELD_ENCRYPTION_KEY with `python manage.py reencrypt_secrets`."""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.db import connection

from merchants.models import Merchant

from ..factories import MerchantFactory

SECRET = "whsec-" + "x" * 26


def stored_ciphertext(merchant) -> str:
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT webhook_secret FROM {Merchant._meta.db_table} WHERE id = %s",
            [merchant.pk],
        )
        return cursor.fetchone()[0]


def test_rotation_rewrites_secrets_under_the_new_key_only(db, settings):
    settings.FIELD_ENCRYPTION_KEY = "old-key"
    merchant = MerchantFactory(webhook_secret=SECRET)
    before = stored_ciphertext(merchant)

    settings.FIELD_ENCRYPTION_KEY = "new-key,old-key"
    out = StringIO()
    call_command("reencrypt_secrets", stdout=out)
    assert "merchants.Merchant (webhook_secret): 1 rows re-encrypted" in out.getvalue()
    assert stored_ciphertext(merchant) != before

    settings.FIELD_ENCRYPTION_KEY = "new-key"
    assert Merchant.objects.get(pk=merchant.pk).webhook_secret == SECRET


def test_rotation_stops_when_a_secret_cannot_be_read(db, settings):
    settings.FIELD_ENCRYPTION_KEY = "old-key"
    MerchantFactory(webhook_secret=SECRET)
    settings.FIELD_ENCRYPTION_KEY = "new-key"
    with pytest.raises(CommandError, match="old key still listed"):
        call_command("reencrypt_secrets", stdout=StringIO())


def test_a_secret_key_rotation_keeps_derived_field_keys_readable(tmp_path):
    """With FIELD_ENCRYPTION_KEY unset, the key derived from a SECRET_KEY listed in
    SECRET_KEY_FALLBACKS still decrypts (and the new one encrypts)."""
    import os
    import subprocess
    import sys

    script = (
        "from django.conf import settings as s;"
        "from config.db.encryption import encrypt, decrypt;"
        "import sys; print(encrypt('x') if sys.argv[1] == 'enc' else "
        "decrypt(sys.argv[2]))"
    )

    def run(env, *args):
        base = {k: v for k, v in os.environ.items() if k != "FIELD_ENCRYPTION_KEY"}
        result = subprocess.run(
            [sys.executable, "-c", f"import django; django.setup(); {script}", *args],
            env={
                **base,
                "DJANGO_SETTINGS_MODULE": "config.settings",
                "DEBUG": "false",
                **env,
            },
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert result.returncode == 0, result.stderr
        return result.stdout.strip()

    old, new = "o" * 60, "n" * 60
    token = run({"SECRET_KEY": old}, "enc")
    rotated = {"SECRET_KEY": new, "SECRET_KEY_FALLBACKS": old}
    assert run(rotated, "dec", token) == "x"
