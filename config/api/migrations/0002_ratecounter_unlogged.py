"""On PostgreSQL the rate counters live in an UNLOGGED table.

A counter bump is then one autocommit statement that writes no WAL and so never
waits for a WAL flush; after a server crash the table comes back empty, which
resets the current windows (docs/decisions.md, "Rate limits").
"""

from django.db import migrations


def _alter(schema_editor, mode: str) -> None:
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"ALTER TABLE api_ratecounter SET {mode}")


def unlogged(apps, schema_editor):
    _alter(schema_editor, "UNLOGGED")


def logged(apps, schema_editor):
    _alter(schema_editor, "LOGGED")


class Migration(migrations.Migration):
    dependencies = [("api", "0001_initial")]

    operations = [migrations.RunPython(unlogged, logged)]
