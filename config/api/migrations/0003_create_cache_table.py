"""The database cache's table, made by `migrate` like every other table.

The cache holds the webhook delivery gate (webhooks/services.py), django-q2's
cluster status and the processor's bank list. Django makes its table only with
`createcachetable`, a step release scripts leave out (every platform runs
`migrate`); this runs that command's own logic for the caches the settings name
(none with REDIS_URL), and it skips a table that exists already.
"""

from django.core.management import call_command
from django.db import migrations


def create_cache_tables(apps, schema_editor):
    call_command(
        "createcachetable", database=schema_editor.connection.alias, verbosity=0
    )


class Migration(migrations.Migration):
    dependencies = [("api", "0002_ratecounter_unlogged")]

    operations = [migrations.RunPython(create_cache_tables, migrations.RunPython.noop)]
