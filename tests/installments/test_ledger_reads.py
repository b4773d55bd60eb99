"""installments/ asks `payments/ledger` for what the ledger knows (a plan's
collections, what each has left to refund, a refund's postings) through its
selectors, never by querying the ledger's tables itself: what a collection has
left is one rule, `payments.ledger.selectors.collections_left`.

Read with `ast` (nothing is imported): a module of installments/ that imports
the ledger's models, or names one of them, must be in ALLOWED with its reason.
Imports under `if TYPE_CHECKING:` (type hints, which never run) do not count.
"""

import ast
from pathlib import Path

INSTALLMENTS = Path(__file__).resolve().parents[2] / "installments"
LEDGER_MODELS = {"LedgerTransaction", "LedgerLine", "LedgerBalance"}
LEDGER_MODULES = {"payments.ledger.models", "payments.models"}

# The modules of installments/ that may read the ledger's rows themselves.
ALLOWED = {
    "ledger_checks.py": (
        "check_ledger: holds paid installments, deposits and payoffs against the "
        "ledger's collections as stored (it checks the reads, so it cannot use them)"
    ),
    "refunds/ledger_checks.py": (
        "check_ledger: holds each refund part against its postings as stored "
        "(it checks the reads, so it cannot use them)"
    ),
    "disputes/ledger_checks.py": (
        "check_ledger: holds each dispute's status and amount held against its "
        "postings as stored (it checks the reads, so it cannot use them)"
    ),
}


def _running_nodes(tree: ast.AST):
    """Every node that runs: `if TYPE_CHECKING:` bodies and string annotations
    are left out."""
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING":
            stack.extend(node.orelse)
            continue
        yield node
        stack.extend(ast.iter_child_nodes(node))


def ledger_uses(source: str) -> list[str]:
    """What a module imports from the ledger's models, or which of them it names."""
    found = []
    for node in _running_nodes(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module in LEDGER_MODULES:
            names = {alias.name for alias in node.names}
            if node.module == "payments.ledger.models" or names & LEDGER_MODELS:
                found.append(f"line {node.lineno}: from {node.module} import ...")
        elif isinstance(node, ast.Import):
            found += [
                f"line {node.lineno}: import {alias.name}"
                for alias in node.names
                if alias.name in LEDGER_MODULES
            ]
        elif isinstance(node, ast.Name) and node.id in LEDGER_MODELS:
            found.append(f"line {node.lineno}: {node.id}")
        elif isinstance(node, ast.Attribute) and node.attr in LEDGER_MODELS:
            found.append(f"line {node.lineno}: .{node.attr}")
    return found


def installments_ledger_uses() -> dict[str, list[str]]:
    uses = {}
    for path in sorted(INSTALLMENTS.rglob("*.py")):
        name = path.relative_to(INSTALLMENTS).as_posix()
        if name.startswith("migrations/"):
            continue
        found = ledger_uses(path.read_text())
        if found:
            uses[name] = found
    return uses


def test_installments_reads_the_ledger_only_through_its_selectors():
    uses = installments_ledger_uses()
    strays = {name: found for name, found in uses.items() if name not in ALLOWED}
    assert strays == {}, (
        "installments/ reads the ledger's tables: ask payments.ledger.selectors "
        f"(collections_left, collection_left, ...) instead: {strays}"
    )
    # The allow-list holds only modules that need it.
    assert sorted(uses) == sorted(ALLOWED)


def test_the_check_sees_every_way_of_reading_the_ledger():
    """What the walk must catch, and what it must let pass."""
    assert ledger_uses("from payments.ledger.models import LedgerTransaction\n")
    assert ledger_uses("from payments.models import LedgerLine\n")
    assert ledger_uses("import payments.ledger.models\n")
    assert ledger_uses(
        "from payments import models\nmodels.LedgerTransaction.objects.all()\n"
    )
    assert ledger_uses("def f():\n    from payments.ledger.models import Kind\n")
    assert not ledger_uses(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
        "    from payments.ledger.models import LedgerTransaction\n"
        "x: 'LedgerTransaction | None' = None\n"
    )
    assert not ledger_uses("from payments.ledger import selectors\n")
    assert not ledger_uses("from payments.models import Customer\n")
