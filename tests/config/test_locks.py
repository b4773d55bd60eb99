"""A row lock takes only the rows it means (DESIGN section 14, STYLE): on
PostgreSQL a plain `FOR UPDATE` locks a row of every table the query joins, so a
plan's lock read with `select_related("merchant", "customer")` also locked the
merchant and the customer, and a refund settlement deadlocked with an engine pass
(issue 25 item 3). A locking query that joins says `of=("self",)` (or names the
rows it wants).

The walk reads every module of the repository with `ast` (nothing is imported or
run). A `select_for_update(...)` call without `of=` is a defect when its query
may join:
- its call chain (before and after it) has `select_related`, or any other method
  given a field path across a relation (`plan__status=...`, `"refund__plan_id"`,
  `Q(plan__merchant=...)`): a filter across a relation joins too;
- or the chain does not start at a model's manager (`Model.objects`,
  `model._base_manager`): a queryset built elsewhere may join anything, so a
  lock on it names its rows.
A part of a path that is a lookup or a transform (`pk__in`, `due_date__lte`,
`created_at__date`) joins nothing.
"""

import ast
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SKIPPED_FOLDERS = {"node_modules", "__pycache__"}

MANAGERS = {"objects", "_base_manager", "_default_manager"}
# Django's lookups and the transforms a field path may end with: none of them
# crosses a relation.
LOOKUPS = {
    "exact", "iexact", "contains", "icontains", "in", "gt", "gte", "lt", "lte",
    "startswith", "istartswith", "endswith", "iendswith", "range", "isnull",
    "regex", "iregex", "date", "year", "iso_year", "month", "day", "week",
    "week_day", "iso_week_day", "quarter", "time", "hour", "minute", "second",
    "contained_by", "overlap", "has_key", "has_keys", "has_any_keys", "len",
    "unaccent", "trigram_similar", "search",
}  # fmt: skip


def _crosses_relation(path: str) -> bool:
    """`plan__status` does; `pk__in`, `created_at__date__lt` do not."""
    parts = path.lstrip("-").split("__")
    return len(parts) > 1 and parts[1] not in LOOKUPS


def _paths_in(node: ast.AST):
    """Every field path a call's arguments name: keyword names (also inside
    `Q(...)`) and string constants."""
    for child in ast.walk(node):
        if isinstance(child, ast.keyword) and child.arg:
            yield child.arg
        elif isinstance(child, ast.Constant) and isinstance(child.value, str):
            yield child.value


def _chain(call: ast.Call, parents: dict) -> tuple[list[ast.Call], ast.AST]:
    """The method calls of the expression `call` is part of, and its root (the
    expression the first method is called on)."""
    calls = [call]
    node = call.func.value
    while isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        calls.append(node)
        node = node.func.value
    root = node
    node = call
    while (
        isinstance(attribute := parents.get(node), ast.Attribute)
        and isinstance(outer := parents.get(attribute), ast.Call)
        and outer.func is attribute
    ):
        calls.append(outer)
        node = outer
    return calls, root


def _from_manager(root: ast.AST) -> bool:
    return isinstance(root, ast.Attribute) and root.attr in MANAGERS


def wide_locks(source: str, name: str = "<source>") -> list[str]:
    """`name:line` of each `select_for_update` in `source` that may lock the
    rows of a joined table (no `of=`)."""
    tree = ast.parse(source)
    parents = {
        child: parent
        for parent in ast.walk(tree)
        for child in ast.iter_child_nodes(parent)
    }
    found = []
    for node in ast.walk(tree):
        if not (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "select_for_update"
        ):
            continue
        if any(keyword.arg == "of" for keyword in node.keywords):
            continue
        calls, root = _chain(node, parents)
        joins = any(
            call.func.attr == "select_related"
            or any(_crosses_relation(path) for path in _paths_in(call))
            for call in calls
        )
        if joins or not _from_manager(root):
            found.append(node.lineno)
    return [f"{name}:{line}" for line in sorted(found)]


def project_modules() -> list[Path]:
    return sorted(
        path
        for path in ROOT.rglob("*.py")
        if not any(
            part.startswith(".") or part in SKIPPED_FOLDERS
            for part in path.relative_to(ROOT).parts
        )
    )


def test_no_lock_in_the_project_takes_the_rows_of_a_joined_table():
    modules = project_modules()
    assert len(modules) > 100  # the walk reads the project, not an empty folder
    found = [
        place
        for path in modules
        for place in wide_locks(path.read_text(), str(path.relative_to(ROOT)))
    ]

    assert found == [], (
        "these locks would also lock the joined tables' rows; add "
        f'of=("self",): {found}'
    )


BAD = textwrap.dedent(
    """
    def lock_plan(plan):
        return (
            PaymentPlan.objects.select_for_update()
            .select_related("merchant", "customer")
            .get(pk=plan.pk)
        )

    def related_first(plan):
        return PaymentPlan.objects.select_related("merchant").select_for_update().get()

    def across_a_relation(m):
        return list(Installment.objects.select_for_update().filter(plan__merchant=m))

    def across_in_a_q(merchant):
        return list(Installment.objects.select_for_update().filter(Q(plan__status="a")))

    def ordered_across(plan):
        return Installment.objects.select_for_update().order_by("-plan__created_at")

    def built_elsewhere(queryset):
        return list(queryset.select_for_update(skip_locked=True))
    """
)

GOOD = textwrap.dedent(
    """
    def lock_plan(plan):
        return (
            PaymentPlan.objects.select_for_update(of=("self",))
            .select_related("merchant", "customer")
            .get(pk=plan.pk)
        )

    def one_table(pks, now):
        PaymentPlan.objects.select_for_update().filter(pk__in=pks).order_by("pk")
        Installment.objects.select_for_update().filter(
            plan_id=1, due_date__lte=now, created_at__date__gte=now, status="paid"
        ).only("id", "status")
        return model._base_manager.select_for_update().get(pk=1)

    def built_elsewhere(queryset):
        return list(queryset.select_for_update(skip_locked=True, of=("self",)))
    """
)


def test_the_check_finds_every_lock_that_may_take_a_joined_tables_rows():
    assert wide_locks(BAD) == [f"<source>:{line}" for line in (4, 10, 13, 16, 19, 22)]


def test_the_check_lets_locks_of_one_table_or_with_of_through():
    assert wide_locks(GOOD) == []
