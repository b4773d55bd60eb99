"""Database helpers below the ORM: hand-built SQL for hot-path rows, bulk inserts
(COPY on PostgreSQL), fields encrypted at rest."""
