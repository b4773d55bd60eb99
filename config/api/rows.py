"""Row look-ups on the request hot path, with their SQL written once per process.

`Model.objects.select_related(fk).filter(...).first()` costs more CPU in the ORM
(building and compiling the query) than PostgreSQL spends running it; on the
lookups every API request makes (its API key, its idempotency record) that was
half of a request's Python time (bench/RESULTS.md, profile). `RowWithParent` runs
the same single-row join from SQL built once, and builds the instances the way
the ORM does (`Model.from_db`, the fields' and the backend's value converters), so
callers get the same objects, with the parent already cached on the child.
"""

from django.db import connection


class RowWithParent:
    """The row of `model` whose `equals` fields have the given values (and which
    meets `also`, SQL on `t.<column>`), with its `parent` foreign key loaded.
    Meant for lookups a unique constraint makes single-row."""

    def __init__(self, model, parent: str, equals: tuple[str, ...], also: str = ""):
        self.model = model
        self.fk = model._meta.get_field(parent)
        self.parent = self.fk.related_model
        self.equals = [model._meta.get_field(name) for name in equals]
        self.also = also
        self._compiled = {}

    def _fields(self, model):
        return list(model._meta.concrete_fields)

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
            sql = (
                f"SELECT {', '.join(columns)} "  # noqa: S608
                f"FROM {quote(self.model._meta.db_table)} t "
                f"JOIN {quote(self.parent._meta.db_table)} p "
                f"ON p.{quote(self.parent._meta.pk.column)} = "
                f"t.{quote(self.fk.column)} "
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
        owner = self.parent.from_db(
            connection.alias, parent_names, self._convert(row[split:], parent_conv)
        )
        self.fk.set_cached_value(obj, owner)
        return obj
