"""Rooms small enough to live in (docs/architecture.md, STYLE): no module over 400
lines, no function over 60, and no module over 150 lines sitting flat at the top
of `payments` or `installments`, whose substance lives in their subpackages (the
top only puts them together: `apps.py`, `urls.py` and the `models.py` that lists
the subpackages' models are excepted).

The walk reads the project's Python with `ast` (nothing is imported), leaving out
migrations, tests, the benchmarks and hidden folders (the virtualenv). A function
counts from its first decorator, or its `def`, to its last line; methods and
nested functions count on their own.
"""

import ast
import os
from pathlib import Path

from .source_trees import write_files

ROOT = Path(__file__).resolve().parents[2]

MODULE_LINES = 400
FUNCTION_LINES = 60
# Apps layered into subpackages: their top only puts the subpackages together.
LAYERED_APPS = ("payments", "installments")
TOP_LINES = 150
TOP_EXCEPTED = {"apps.py", "urls.py", "models.py"}
LEFT_OUT = {"migrations", "tests", "bench", "__pycache__"}
# Modules left whole over MODULE_LINES, each with its reason (the size is a guide,
# never a reason to split one concern or to cut its comments).
LONG_MODULES_ALLOWED = {
    "config/settings.py": "every setting defined once, read top to bottom, each "
    "with the comment that says why",
    "payments/gateway/processors/base.py": "the one interface every processor "
    "adapter implements, each call with the contract it keeps; its types are "
    "in modules of their own already (offline, payout and dispute types)",
    "payments/ledger/services.py": "every posting of the journal in one place "
    "(docs/architecture.md: a new kind of movement is one posting function "
    "here), each the mirror of its lines in checks.py::_expected_lines",
}


def project_modules(root: Path) -> list[Path]:
    found = []
    for folder, subfolders, files in os.walk(root):
        subfolders[:] = sorted(
            name
            for name in subfolders
            if name not in LEFT_OUT and not name.startswith(".")
        )
        found += [Path(folder) / name for name in sorted(files) if name.endswith(".py")]
    return found


def _functions(tree: ast.AST) -> list[tuple[ast.AST, int]]:
    """Every function, method and nested function, in the order of the file, with
    its length."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            found.append((node, node.end_lineno - first + 1))
    return sorted(found, key=lambda item: item[0].lineno)


def size_problems(root: Path) -> list[str]:
    problems = []
    for path in project_modules(root):
        text = path.read_text()
        name = path.relative_to(root).as_posix()
        lines = len(text.splitlines())
        if lines > MODULE_LINES and name not in LONG_MODULES_ALLOWED:
            problems.append(
                f"{name}: {lines} lines, over {MODULE_LINES}: give each concern "
                "its own module or package"
            )
        app = path.parent.relative_to(root).as_posix()
        if app in LAYERED_APPS and path.name not in TOP_EXCEPTED and lines > TOP_LINES:
            problems.append(
                f"{name}: {lines} lines flat at the top of {app}, over "
                f"{TOP_LINES}: it belongs in the subpackage of its domain"
            )
        for node, length in _functions(ast.parse(text, filename=str(path))):
            if length > FUNCTION_LINES:
                problems.append(
                    f"{name}:{node.lineno} {node.name}(): {length} lines, over "
                    f"{FUNCTION_LINES}"
                )
    return problems


# --- the project ------------------------------------------------------------------


def test_no_module_or_function_of_the_project_is_too_long():
    modules = project_modules(ROOT)

    assert ROOT / "checkout" / "pages.py" in modules  # the walk did read the project
    assert len(modules) > 200
    assert size_problems(ROOT) == []


def test_every_module_allowed_to_be_long_is_there_and_long():
    for name in LONG_MODULES_ALLOWED:
        path = ROOT / name
        assert path.exists(), f"{name} is allowed to be long but is gone"
        assert len(path.read_text().splitlines()) > MODULE_LINES, (
            f"{name} is no longer over {MODULE_LINES} lines: take it off the list"
        )


def test_the_walk_leaves_out_migrations_tests_and_benchmarks():
    names = {path.relative_to(ROOT).parts[0] for path in project_modules(ROOT)}
    folders = {part for path in project_modules(ROOT) for part in path.parts}

    assert {"checkout", "payments", "config", "manage.py"} <= names
    assert not {"tests", "bench", "migrations", ".venv"} & folders


# --- the check itself fails where it must ----------------------------------------


def _function(name: str, lines: int, indent: str = "", decorators: int = 0) -> str:
    """A function of exactly `lines` lines, its decorators included."""
    body = [f"{indent}    x = {i}" for i in range(lines - 1 - decorators)]
    return "\n".join(
        [*[f"{indent}@staticmethod"] * decorators, f"{indent}def {name}():", *body]
    )


def _lines(count: int) -> str:
    return "\n".join(f"X{i} = {i}" for i in range(count)) + "\n"


def test_long_modules_and_functions_are_reported_and_the_left_out_are_not(tmp_path):
    write_files(
        tmp_path,
        {
            "app/big.py": _lines(401),
            "app/fits.py": _lines(400),
            "app/functions.py": "\n".join(
                [
                    _function("sixty", 60),
                    _function("sixty_one", 61),
                    "class Page:",
                    _function("decorated", 61, indent="    ", decorators=2),
                    _function("method_sixty", 60, indent="    ", decorators=1),
                    "def outer():",
                    _function("inner", 61, indent="    "),
                    "async def waits():",
                    *["    await x"] * 60,
                    "",
                ]
            ),
            "app/migrations/0001_initial.py": _lines(900),
            "tests/test_big.py": _lines(900),
            "bench/run.py": _lines(900),
            ".venv/lib/big.py": _lines(900),
        },
    )

    problems = size_problems(tmp_path)

    assert problems == [
        "app/big.py: 401 lines, over 400: give each concern its own module or package",
        "app/functions.py:61 sixty_one(): 61 lines, over 60",
        "app/functions.py:125 decorated(): 61 lines, over 60",
        "app/functions.py:244 outer(): 62 lines, over 60",
        "app/functions.py:245 inner(): 61 lines, over 60",
        "app/functions.py:306 waits(): 61 lines, over 60",
    ]


def test_a_long_module_flat_at_the_top_of_a_layered_app_is_reported(tmp_path):
    write_files(
        tmp_path,
        {
            "payments/admin.py": _lines(151),
            "payments/schema.py": _lines(150),
            "payments/apps.py": _lines(300),
            "payments/urls.py": _lines(300),
            "payments/models.py": _lines(300),
            "payments/ledger/services.py": _lines(300),
            "installments/metrics.py": _lines(151),
            "installments/tasks.py": _lines(150),
            "installments/apps.py": _lines(300),
            "installments/urls.py": _lines(300),
            "installments/models.py": _lines(300),
            "installments/refunds/services.py": _lines(300),
            "checkout/services.py": _lines(300),
        },
    )

    assert size_problems(tmp_path) == [
        "installments/metrics.py: 151 lines flat at the top of installments, over "
        "150: it belongs in the subpackage of its domain",
        "payments/admin.py: 151 lines flat at the top of payments, over 150: it "
        "belongs in the subpackage of its domain",
    ]
