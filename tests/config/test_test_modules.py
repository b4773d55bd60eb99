"""The tests keep their shared parts in one place: a test module never imports
from another test module (shared helpers live in plain modules such as
tests/servers.py or tests/installments/failed_collections.py, shared fixtures
in a conftest.py), and the fixtures many folders use are defined once."""

import ast
from pathlib import Path

from .source_trees import write_files

TESTS = Path(__file__).resolve().parents[1]

# Fixtures every folder shares, defined once (in tests/conftest.py).
SHARED_FIXTURES = ("dashboard_for", "receiver")


def modules(root: Path):
    for path in sorted(root.rglob("*.py")):
        if "vendor" not in path.relative_to(root).parts:
            yield path


def imported_modules(path: Path, root: Path) -> list[tuple[int, str]]:
    """(line, dotted module relative to the folder above `root`) of each
    `import` and `from ... import` in the module."""
    package = path.parent.relative_to(root.parent).parts
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else ()
            module = ".".join([*base, *([node.module] if node.module else [])])
            if node.module is None:
                found += [(node.lineno, f"{module}.{a.name}") for a in node.names]
            else:
                found.append((node.lineno, module))
    return found


def imports_of_test_modules(root: Path) -> list[str]:
    """`path:line imports module` for each import of a test module (a
    `test_*.py`) anywhere under `root`."""
    return [
        f"{path.relative_to(root.parent)}:{line} imports {module}"
        for path in modules(root)
        for line, module in imported_modules(path, root)
        if any(part.startswith("test_") for part in module.split("."))
    ]


def fixture_definitions(root: Path, name: str) -> list[str]:
    """`path:line` of each function named `name` decorated as a pytest fixture."""
    return [
        f"{path.relative_to(root.parent)}:{node.lineno}"
        for path in modules(root)
        for node in ast.walk(ast.parse(path.read_text(), str(path)))
        if isinstance(node, ast.FunctionDef)
        and node.name == name
        and any("fixture" in ast.unparse(d) for d in node.decorator_list)
    ]


def test_no_test_module_is_imported():
    assert imports_of_test_modules(TESTS) == []


def test_the_shared_fixtures_are_defined_once_in_the_top_conftest():
    for name in SHARED_FIXTURES:
        assert fixture_definitions(TESTS, name) == [
            f"tests/conftest.py:{line(TESTS / 'conftest.py', name)}"
        ], name


def line(path: Path, name: str) -> int:
    [node] = [
        node
        for node in ast.parse(path.read_text()).body
        if isinstance(node, ast.FunctionDef) and node.name == name
    ]
    return node.lineno


# --- the scans find what they look for ----------------------------------------


def test_the_scan_finds_every_form_of_importing_a_test_module(tmp_path):
    root = tmp_path / "tests"
    write_files(
        root,
        {
            "__init__.py": "",
            "helpers.py": "X = 1\n",
            "shop/__init__.py": "",
            "shop/test_a.py": "from .test_b import helper\n",
            "shop/test_b.py": "from ..helpers import X\nfrom . import test_a\n",
            "shop/conftest.py": "from tests.shop.test_a import thing\n",
            "shop/util.py": "import tests.other.test_c\nfrom ..other.test_c import y\n",
            "vendor/test_vendored.py": "from .test_x import z\n",
        },
    )

    assert imports_of_test_modules(root) == [
        "tests/shop/conftest.py:1 imports tests.shop.test_a",
        "tests/shop/test_a.py:1 imports tests.shop.test_b",
        "tests/shop/test_b.py:2 imports tests.shop.test_a",
        "tests/shop/util.py:1 imports tests.other.test_c",
        "tests/shop/util.py:2 imports tests.other.test_c",
    ]


def test_the_scan_finds_a_fixture_defined_twice(tmp_path):
    root = tmp_path / "tests"
    fixture = "import pytest\n\n\n@pytest.fixture\ndef receiver():\n    return 1\n"
    write_files(
        root,
        {
            "conftest.py": fixture,
            "shop/test_a.py": "def receiver():\n    return 2\n",  # not a fixture
            "shop/test_b.py": fixture.replace("pytest.fixture", "pytest.fixture()"),
        },
    )

    assert fixture_definitions(root, "receiver") == [
        "tests/conftest.py:5",
        "tests/shop/test_b.py:5",
    ]
