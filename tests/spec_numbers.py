"""What a merchant must never read either: the numbers the service's own
specification gives its endpoints ("endpoint 9", "### 21. Send a test event",
a table column of them). A merchant knows an operation by its method and path,
or by its name in the API reference; the numbers mean nothing outside this
repository (issue 25, item 9)."""

import re

METHOD = r"(?:GET|POST|PUT|PATCH|DELETE)"
_IN_TEXT = re.compile(r"\bendpoints?\s*(?:no\.?\s*|#\s*)?\d+", re.I)
# A numbered heading that names an operation: "21. Send a test event: POST /api/..."
_HEADING = re.compile(rf"^\s*\d+\.\s[^\n]*\b{METHOD}\s+/api/", re.M)
# A table whose first column numbers the operations of the next one (an HTTP
# status, three digits, is not such a number).
_TABLE_ROW = re.compile(
    r"<td>\s*\d{1,2}\s*</td>\s*<td>\s*<code>\s*" + METHOD + r"\s", re.I
)


def spec_numbers(text: str, *, headings=(), html: str = "") -> list[str]:
    """The spec numbers in `text` (what a reader sees), in `headings` and in the
    tables of `html`."""
    found = _IN_TEXT.findall(text)
    found += [heading for heading in headings if _HEADING.search(heading)]
    found += _TABLE_ROW.findall(html)
    return found
