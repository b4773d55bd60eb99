"""The operations guide's "Adding an endpoint" is the code as it is (issue 25,
item 9): its example is the payment-link operation's description in
checkout/links_schema.py word for word, and every helper, table and file it names
exists."""

import re
import textwrap

import pytest

from config.api import reference, request_fields
from config.api import schema as api_schema
from tests import servers

ROOT = servers.ROOT


def section() -> str:
    text = (ROOT / "docs" / "operations.md").read_text()
    start = text.index("### Adding an endpoint")
    return text[start : text.index("\n## ", start)]


def normalized(code: str) -> str:
    return " ".join(code.split())


def test_the_example_is_the_code_as_it_is():
    (example,) = re.findall(r"```python\n(.*?)```", section(), re.S)
    example = textwrap.dedent(example)
    schema_module = (ROOT / "checkout" / "links_schema.py").read_text()

    assert "endpoint 4" not in example
    assert normalized(example) in normalized(schema_module)


@pytest.mark.parametrize(
    "name",
    [
        "component",
        "obj",
        "string",
        "nullable",
        "KOBO",
        "TIMESTAMP",
        "ok_envelope",
        "list_envelope",
        "errors",
        "path_id",
        "PAGINATION",
        "PROCESSOR_SIGNATURE",
    ],
)
def test_the_schema_helpers_it_names_exist(name):
    assert re.search(rf"\b{name}\b", section())
    assert hasattr(api_schema, name)


def test_the_other_names_it_gives_exist():
    text = section()
    assert hasattr(request_fields, "describe_fields")
    assert hasattr(request_fields, "describe_body")
    assert "`TAGS` (`config/api/reference.py`)" in text
    assert reference.TAGS
    contract = ROOT / "tests" / "api_contract"
    matrix = (contract / "matrix.py").read_text()
    assert "\nROUTES: dict[str, Route] = {" in matrix
    assert '\nSIGNATURE = "' in matrix and "owned: bool" in matrix
    assert "\ndef world(" in (contract / "conftest.py").read_text()
    assert "\ndef _put_real_ids(" in (contract / "test_fuzz.py").read_text()
    for path in re.findall(
        r"`((?:tests|docs|config|merchants)/[\w/.]+\.(?:py|md))`", text
    ):
        assert (ROOT / path).exists(), path
