"""Running migrations in a test (a data migration's or a schema change's test
on a database seeded before it): `migrate(targets)` answers the apps of that
state; `latest()` runs every migration again, as the suite expects."""

from django.db import connection
from django.db.migrations.executor import MigrationExecutor


def migrate(targets):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


def latest() -> None:
    migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())
