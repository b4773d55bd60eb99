"""Imports point one way (DESIGN section 1, docs/architecture.md): checkout ->
installments -> payments -> webhooks -> merchants -> config. A module may import
from its own app and from any app to its right, never to its left. Inside
payments and inside installments, the subpackages are layered the same way and
never import each other in a cycle; so are config's foundations (config.web
over config.api).

The walk reads every module of the project with `ast` (nothing is imported):
imports at the top, inside functions and inside classes all count; those under
`if TYPE_CHECKING:` do not (they never run). The documented exceptions:
config/urls.py (mounts every app's URLs) and each app's apps.py (registrations
in `ready()`).
"""

import ast
from dataclasses import dataclass
from pathlib import Path

from .source_trees import write_files

ROOT = Path(__file__).resolve().parents[2]

# Highest first: an app may import itself and any app after it.
APP_ORDER = ["checkout", "installments", "payments", "webhooks", "merchants", "config"]
EXCEPTIONS = {"config.urls"}  # and every `<app>.apps`

# The domain subpackages of payments, lowest first: each may import itself and
# those before it. The modules at the top of payments (apps, urls, admin,
# models, schema, management commands, ...) put them together and are imported
# by none of them.
PAYMENTS_LAYERS = ["customers", "ledger", "gateway", "methods", "payouts", "dashboard"]

# The subpackages of installments, lowest first: the shared core (the plan, its
# rules, events, reads and representation), then one subpackage per feature.
# Its top (apps, admin, models, urls, schema, tasks, metrics, orders,
# ledger_checks, management commands) puts them together.
INSTALLMENTS_LAYERS = [
    "plans",
    "paylinks",
    "notifications",
    "signin",
    "deposits",
    "early",
    "collection",
    "agreements",
    "cancellation",
    "refunds",
    "reschedules",
    "disputes",
    "privacy",
    "pay",
    "account",
    "dashboard",
    "retention",
]
# Folders of an app that are not subpackages of its layers.
NOT_LAYERS = ("management", "migrations", "templatetags")

# config's foundations (subpackages and modules), lowest first, the same way. The
# HTML plumbing sits over the API's: a page validates with the API's serializer
# and signs in through its guard, so config.web may import config.api, never the
# reverse. The top of config (settings, urls, asgi, wsgi, gunicorn) puts it
# together and is imported by none of them.
CONFIG_LAYERS = [
    "text",
    "money",
    "sides",
    "progress",
    "admin",
    "destinations",
    "schedules",
    "sms",
    "db",
    "models",
    "api",
    "accounts",
    "web",
    "exports",
    "observability",
]
CONFIG_TOP = ["settings", "urls", "asgi", "wsgi", "gunicorn"]


@dataclass(frozen=True)
class Import:
    module: str  # the importing module
    target: str  # the imported module (or the package a name comes from)
    line: int


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_module(name: str, root: Path) -> bool:
    path = root.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def _type_checking_only(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _import_nodes(tree: ast.AST):
    """Every import statement that runs, skipping `if TYPE_CHECKING:` bodies."""
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.If) and _type_checking_only(node):
            stack.extend(node.orelse)
            continue
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        stack.extend(ast.iter_child_nodes(node))


def imports_of(path: Path, root: Path) -> list[Import]:
    module = module_name(path, root)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = []
    for node in _import_nodes(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            found += [Import(module, alias.name, node.lineno) for alias in node.names]
            continue
        base = node.module or ""
        if node.level:
            anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
            base = ".".join([*anchor, *([base] if base else [])])
        for alias in node.names:
            name = f"{base}.{alias.name}"
            target = name if _is_module(name, root) else base
            found.append(Import(module, target, node.lineno))
    return found


def project_imports(root: Path, apps: list[str]) -> list[Import]:
    found = []
    for app in apps:
        for path in sorted((root / app).rglob("*.py")):
            found += imports_of(path, root)
    return found


def _app(module: str, apps: list[str]) -> str | None:
    top = module.split(".")[0]
    return top if top in apps else None


def upward_imports(imports: list[Import], apps: list[str]) -> list[str]:
    problems = []
    for imp in imports:
        source, target = _app(imp.module, apps), _app(imp.target, apps)
        if source is None or target is None:
            continue
        if imp.module in EXCEPTIONS or imp.module == f"{source}.apps":
            continue
        if apps.index(target) < apps.index(source):
            problems.append(
                f"{imp.module} (line {imp.line}) imports {imp.target}: "
                f"{source} may not import {target}, which sits above it"
            )
    return problems


def _subpackage(module: str, app: str, layers: list[str]) -> str | None:
    parts = module.split(".")
    if parts[0] != app:
        return None
    return parts[1] if parts[1:] and parts[1] in layers else ""  # "": the top


def subpackage_edges(imports: list[Import], app: str, layers: list[str]) -> dict:
    """{(importing subpackage, imported): first Import} inside `app`; the top
    of `app` is ""."""
    edges = {}
    for imp in imports:
        source = _subpackage(imp.module, app, layers)
        target = _subpackage(imp.target, app, layers)
        if source is None or target is None or source == target:
            continue
        edges.setdefault((source, target), imp)
    return edges


def layer_breaches(edges: dict, app: str, layers: list[str]) -> list[str]:
    problems = []
    for (source, target), imp in sorted(edges.items()):
        if source == "":
            continue  # the top of the app puts the subpackages together
        if target == "":
            problems.append(
                f"{imp.module} (line {imp.line}) imports {imp.target}, the top of "
                f"{app}, which imports every subpackage: import from the "
                "subpackage that defines it"
            )
        elif layers.index(target) > layers.index(source):
            problems.append(
                f"{imp.module} (line {imp.line}) imports {imp.target}: {app}."
                f"{source} may not import {app}.{target}, which sits above it"
            )
    return problems


def cycles(edges: dict) -> list[list[str]]:
    """Each cycle between the subpackages once, as the list of its nodes (an
    import of the top of the app is a layer breach already)."""
    graph = {}
    for source, target in edges:
        if source and target:
            graph.setdefault(source, set()).add(target)
    found, seen = [], set()

    def visit(node, path):
        for nxt in sorted(graph.get(node, ())):
            if nxt in path:
                cycle = path[path.index(nxt) :]
                key = frozenset(cycle)
                if key not in seen:
                    seen.add(key)
                    found.append([*cycle, nxt])
            else:
                visit(nxt, [*path, nxt])

    for start in sorted(graph):
        visit(start, [start])
    return found


# --- the project ------------------------------------------------------------------


def test_no_app_imports_an_app_above_it():
    imports = project_imports(ROOT, APP_ORDER)

    assert len(imports) > 500  # the walk did read the project
    assert upward_imports(imports, APP_ORDER) == []


def layered_edges(app: str, layers: list[str]) -> dict:
    """The edges between `app`'s subpackages in the project."""
    return subpackage_edges(project_imports(ROOT, [app]), app, layers)


def test_payments_subpackages_import_only_those_below_them():
    edges = layered_edges("payments", PAYMENTS_LAYERS)

    assert ("methods", "gateway") in edges  # the walk did see the subpackages
    assert layer_breaches(edges, "payments", PAYMENTS_LAYERS) == []


def test_payments_subpackages_have_no_import_cycle():
    edges = layered_edges("payments", PAYMENTS_LAYERS)

    assert cycles(edges) == []


def test_every_payments_subpackage_has_its_place_in_the_layers():
    found = {
        path.parent.name
        for path in (ROOT / "payments").glob("*/__init__.py")
        if path.parent.name not in NOT_LAYERS
    }

    assert found == set(PAYMENTS_LAYERS)


def test_installments_subpackages_import_only_those_below_them():
    edges = layered_edges("installments", INSTALLMENTS_LAYERS)

    assert ("refunds", "plans") in edges  # the walk did see the subpackages
    assert layer_breaches(edges, "installments", INSTALLMENTS_LAYERS) == []


def test_installments_subpackages_have_no_import_cycle():
    edges = layered_edges("installments", INSTALLMENTS_LAYERS)

    assert cycles(edges) == []


def test_every_installments_subpackage_has_its_place_in_the_layers():
    found = {
        path.parent.name
        for path in (ROOT / "installments").glob("*/__init__.py")
        if path.parent.name not in NOT_LAYERS
    }

    assert found == set(INSTALLMENTS_LAYERS)


def test_config_foundations_import_only_those_below_them_and_no_cycle():
    edges = layered_edges("config", CONFIG_LAYERS)

    assert ("web", "api") in edges  # the walk did see the foundations
    assert layer_breaches(edges, "config", CONFIG_LAYERS) == []
    assert cycles(edges) == []


def test_every_config_foundation_has_its_place_in_the_layers():
    config = ROOT / "config"
    found = {path.parent.name for path in config.glob("*/__init__.py")}
    found |= {path.stem for path in config.glob("*.py") if path.stem != "__init__"}

    assert found == set(CONFIG_LAYERS) | set(CONFIG_TOP)


# --- the checks themselves fail where they must --------------------------------------


def test_an_upward_import_is_reported_and_the_exceptions_are_not(tmp_path):
    write_files(
        tmp_path,
        {
            "merchants/__init__.py": "",
            "merchants/services.py": "from payments.models import Customer\n",
            "merchants/apps.py": "def ready():\n    from checkout import hooks\n",
            "payments/__init__.py": "",
            "payments/models.py": "from merchants.services import x\n",
            "config/__init__.py": "",
            "config/urls.py": "import checkout.urls\n",
            "checkout/__init__.py": "",
            "checkout/pages.py": "from typing import TYPE_CHECKING\n"
            "if TYPE_CHECKING:\n    from config import x\n"
            "from . import models\n",
        },
    )
    imports = project_imports(tmp_path, APP_ORDER)

    problems = upward_imports(imports, APP_ORDER)

    assert problems == [
        "merchants.services (line 1) imports payments.models: merchants may not "
        "import payments, which sits above it"
    ]


def test_a_cycle_and_an_upward_import_between_payments_subpackages_are_reported(
    tmp_path,
):
    write_files(
        tmp_path,
        {
            "payments/__init__.py": "",
            "payments/models.py": "from .gateway.models import Charge\n",
            "payments/gateway/__init__.py": "",
            "payments/gateway/models.py": "from ..methods import services\n",
            "payments/methods/__init__.py": "",
            "payments/methods/services.py": "from ..gateway import models\n"
            "from payments.models import Charge\n",
        },
    )
    edges = subpackage_edges(
        project_imports(tmp_path, ["payments"]), "payments", PAYMENTS_LAYERS
    )

    assert cycles(edges) == [["gateway", "methods", "gateway"]]
    assert layer_breaches(edges, "payments", PAYMENTS_LAYERS) == [
        "payments.gateway.models (line 1) imports payments.methods.services: "
        "payments.gateway may not import payments.methods, which sits above it",
        "payments.methods.services (line 2) imports payments.models, the top of "
        "payments, which imports every subpackage: import from the subpackage "
        "that defines it",
    ]


def test_config_api_and_config_web_importing_each_other_is_reported(tmp_path):
    write_files(
        tmp_path,
        {
            "config/__init__.py": "",
            "config/urls.py": "from config.api import docs\n",
            "config/api/__init__.py": "",
            "config/api/docs.py": "from config.web.security_headers import policy\n",
            "config/api/login_guard.py": "from config import text\n",
            "config/text.py": "",
            "config/web/__init__.py": "",
            "config/web/security_headers.py": "",
            "config/web/forms.py": "from config.api.login_guard import client_ip\n",
        },
    )
    edges = subpackage_edges(
        project_imports(tmp_path, ["config"]), "config", CONFIG_LAYERS
    )

    assert cycles(edges) == [["api", "web", "api"]]
    assert layer_breaches(edges, "config", CONFIG_LAYERS) == [
        "config.api.docs (line 1) imports config.web.security_headers: config.api "
        "may not import config.web, which sits above it"
    ]


def test_an_installments_feature_importing_the_top_or_a_feature_above_is_reported(
    tmp_path,
):
    write_files(
        tmp_path,
        {
            "installments/__init__.py": "",
            "installments/models.py": "from .refunds.models import Refund\n",
            "installments/plans/__init__.py": "",
            "installments/plans/events.py": "from ..refunds import models\n",
            "installments/refunds/__init__.py": "",
            "installments/refunds/models.py": "from ..plans import events\n"
            "from installments.models import Refund\n",
        },
    )
    imports = project_imports(tmp_path, ["installments"])
    edges = subpackage_edges(imports, "installments", INSTALLMENTS_LAYERS)

    assert cycles(edges) == [["plans", "refunds", "plans"]]
    assert layer_breaches(edges, "installments", INSTALLMENTS_LAYERS) == [
        "installments.plans.events (line 1) imports installments.refunds.models: "
        "installments.plans may not import installments.refunds, which sits "
        "above it",
        "installments.refunds.models (line 2) imports installments.models, the "
        "top of installments, which imports every subpackage: import from the "
        "subpackage that defines it",
    ]
