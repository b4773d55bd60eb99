"""Row look-ups on the request hot path, with their SQL written once per process.

`Model.objects.select_related(fk).filter(...).first()` costs more CPU in the ORM
(building and compiling the query) than PostgreSQL spends running it; on the
lookups every API request makes (its API key, its idempotency record) that was
half of a request's Python time (bench/RESULTS.md, profile). `OneRow` runs
the same single-row join from SQL built once, and builds the instances the way
the ORM does (`Model.from_db`, the fields' and the backend's value converters), so
callers get the same objects, with the parent already cached on the child.
`insert_row` is `instance.save(force_insert=True)` the same way, for rows written
once per charge or per request.
"""

from contextlib import nullcontext
from datetime import datetime
from functools import cache

from django.db import connection, models, transaction


class OneRow:
    """The row of `model` whose `equals` fields have the given values (and which
    meets `also`, SQL on `t.<column>`), with its `parent` foreign key loaded
    when one is named. Meant for lookups a unique constraint makes
    single-row."""

    def __init__(
        self, model, *, equals: tuple[str, ...], also: str = "", parent: str = ""
    ):
        self.model = model
        self.fk = model._meta.get_field(parent) if parent else None
        self.parent = self.fk.related_model if parent else None
        self.equals = [model._meta.get_field(name) for name in equals]
        self.also = also
        self._compiled = {}

    def _fields(self, model):
        return list(model._meta.concrete_fields) if model is not None else []

    def _converters(self, fields, alias: str):
        converters = []
        for field in fields:
            col = field.get_col(alias)
            found = connection.ops.get_db_converters(col) + col.get_db_converters(
                connection
            )
            converters.append((col, found))
        return converters

    def _compile(self):
        vendor = connection.vendor
        if vendor not in self._compiled:
            quote = connection.ops.quote_name
            where = [f"t.{quote(f.column)} = %s" for f in self.equals]
            if self.also:
                where.append(self.also)
            child, parent = self._fields(self.model), self._fields(self.parent)
            columns = [f"t.{quote(f.column)}" for f in child] + [
                f"p.{quote(f.column)}" for f in parent
            ]
            join = (
                f"JOIN {quote(self.parent._meta.db_table)} p "
                f"ON p.{quote(self.parent._meta.pk.column)} = "
                f"t.{quote(self.fk.column)} "
                if self.parent is not None
                else ""
            )
            sql = (
                f"SELECT {', '.join(columns)} "  # noqa: S608
                f"FROM {quote(self.model._meta.db_table)} t {join}"
                f"WHERE {' AND '.join(where)} LIMIT 1"
            )
            self._compiled[vendor] = (
                sql,
                [f.attname for f in child],
                [f.attname for f in parent],
                self._converters(child, "t"),
                self._converters(parent, "p"),
            )
        return self._compiled[vendor]

    @staticmethod
    def _convert(values, converters):
        out = []
        for value, (col, found) in zip(values, converters, strict=True):
            for convert in found:
                value = convert(value, col, connection)
            out.append(value)
        return out

    def first(self, **values):
        sql, child_names, parent_names, child_conv, parent_conv = self._compile()
        params = [
            field.get_db_prep_value(values[field.name], connection, prepared=False)
            for field in self.equals
        ]
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            row = cursor.fetchone()
        if row is None:
            return None
        split = len(child_names)
        obj = self.model.from_db(
            connection.alias, child_names, self._convert(row[:split], child_conv)
        )
        if self.parent is None:
            return obj
        owner = self.parent.from_db(
            connection.alias, parent_names, self._convert(row[split:], parent_conv)
        )
        self.fk.set_cached_value(obj, owner)
        return obj


def inserted_fields(model) -> list:
    """The fields an insert writes: every concrete field but the primary key."""
    return [f for f in model._meta.local_concrete_fields if not f.primary_key]


def insert_values(instance, skip: str = "") -> list:
    """The parameters Django's own insert of `instance` would send (`pre_save`
    runs, so `auto_now_add` and defaults are filled in on the instance)."""
    fields = [f for f in inserted_fields(type(instance)) if f.column != skip]
    return _copy_row(instance, fields, _kinds(fields))


def typed_select(model, instead: dict[str, str]) -> tuple[str, str]:
    """The column list and a SELECT list of typed placeholders (`%s::bigint`)
    for inserting a `model` row with `INSERT ... SELECT`; `instead` maps a column
    to an SQL expression."""
    quote = connection.ops.quote_name
    fields = inserted_fields(model)
    columns = ", ".join(quote(f.column) for f in fields)
    selected = ", ".join(
        instead.get(f.column, f"%s::{f.cast_db_type(connection)}") for f in fields
    )
    return columns, selected


@cache
def _insert_sql(model, vendor: str) -> str:
    quote = connection.ops.quote_name
    fields = inserted_fields(model)
    return (
        f"INSERT INTO {quote(model._meta.db_table)} "  # noqa: S608
        f"({', '.join(quote(f.column) for f in fields)}) "
        f"VALUES ({', '.join(['%s'] * len(fields))}) "
        f"RETURNING {quote(model._meta.pk.column)}"
    )


def insert_row(instance) -> None:
    """Insert `instance` (no signals are sent) and set its primary key. Atomic
    on its own outside a transaction; inside one it runs in a savepoint, so an
    IntegrityError leaves the caller's transaction usable."""
    sql = _insert_sql(type(instance), connection.vendor)
    params = insert_values(instance)
    with (
        transaction.atomic() if connection.in_atomic_block else nullcontext(),
        connection.cursor() as cursor,
    ):
        cursor.execute(sql, params)
        instance.pk = cursor.fetchone()[0]
    instance._state.adding = False
    instance._state.db = connection.alias


# Field classes (exactly these, not subclasses such as an encrypted text field)
# whose database value is the attribute itself when that is a plain int, str, bool
# or None: Django's preparation would hand it back unchanged, at a cost that
# showed in the engine's profile.
_PLAIN_FIELDS = {
    models.AutoField,
    models.BigAutoField,
    models.SmallAutoField,
    models.IntegerField,
    models.BigIntegerField,
    models.SmallIntegerField,
    models.PositiveIntegerField,
    models.PositiveBigIntegerField,
    models.PositiveSmallIntegerField,
    models.BooleanField,
    models.CharField,
    models.TextField,
    models.EmailField,
    models.URLField,
    models.ForeignKey,
    models.OneToOneField,
}
_PLAIN_VALUES = (int, str, bool, type(None))
_OTHER, _PLAIN, _DATETIME = 0, 1, 2


def _kinds(fields: list) -> list[int]:
    """How `_copy_row` prepares each field's value. A `DateTimeField` (exactly)
    holding an aware datetime or None goes to PostgreSQL as it is: Django's
    preparation checks it is aware and hands it back (the backend's
    `adapt_datetimefield_value` is the identity there), 4 us a value that were
    5% of the engine's CPU. Other backends convert it, so they take Django's
    path."""
    datetimes = connection.vendor == "postgresql"
    return [
        _PLAIN
        if type(f) in _PLAIN_FIELDS
        else _DATETIME
        if datetimes and type(f) is models.DateTimeField
        else _OTHER
        for f in fields
    ]


def _copy_row(instance, fields: list, kinds: list[int]) -> list:
    row = []
    for field, kind in zip(fields, kinds, strict=True):
        if kind == _PLAIN:
            value = getattr(instance, field.attname)
            if type(value) in _PLAIN_VALUES:
                row.append(value)
                continue
        # `pre_save` fills in auto_now(_add) as Django's insert does.
        value = field.pre_save(instance, True)
        if kind == _DATETIME and (
            value is None or (type(value) is datetime and value.utcoffset() is not None)
        ):
            row.append(value)
            continue
        row.append(field.get_db_prep_save(value, connection))
    return row


def bulk_insert(instances: list) -> None:
    """`bulk_create(instances)` for the engine's batch writes (no signals; sets
    the primary keys). On PostgreSQL the ids come from the table's sequence in
    one query and the rows go in by `COPY`, which psycopg formats in C: Django's
    bulk insert passes each column as an array parameter that psycopg builds and
    escapes in Python, a quarter of the engine's CPU (bench/RESULTS.md)."""
    if not instances:
        return
    model = type(instances[0])
    if connection.vendor != "postgresql" or len(instances) == 1:
        model.objects.bulk_create(instances)
        return
    meta = model._meta
    quote = connection.ops.quote_name
    fields = list(meta.local_concrete_fields)
    with connection.cursor() as cursor:
        missing = [instance for instance in instances if instance.pk is None]
        if missing:
            cursor.execute(
                "SELECT nextval(pg_get_serial_sequence(%s, %s)) "
                "FROM generate_series(1, %s)",
                [meta.db_table, meta.pk.column, len(missing)],
            )
            for instance, (pk,) in zip(missing, cursor.fetchall(), strict=True):
                instance.pk = pk
        kinds = _kinds(fields)
        rows = [_copy_row(instance, fields, kinds) for instance in instances]
        columns = ", ".join(quote(f.column) for f in fields)
        copy_sql = f"COPY {quote(meta.db_table)} ({columns}) FROM STDIN"
        with connection.wrap_database_errors, cursor.cursor.copy(copy_sql) as copy:
            for row in rows:
                copy.write_row(row)
    for instance in instances:
        instance._state.adding = False
        instance._state.db = connection.alias
