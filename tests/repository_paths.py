"""What a merchant must never read: the paths, files and modules of this repository.

Merchants use a hosted service; they cannot open `payments/ledger/services.py`,
`docs/wallet.md` or `tests/`, so texts written for them (the guides under /docs/,
the OpenAPI schema) name pages of the site and API paths instead. The folders are
read from the repository itself, so a new app is covered without editing this.
"""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = sorted(
    path.name
    for path in ROOT.iterdir()
    if path.is_dir()
    and not path.name.startswith((".", "_"))
    and path.name != "node_modules"
)
PACKAGES = sorted(name for name in FOLDERS if (ROOT / name / "__init__.py").exists())
# Files of the code base and its notes; `.js` is left out because the service
# serves `/widget.js` by that name.
EXTENSIONS = ("py", "md", "toml", "txt", "cfg", "ini", "yml", "yaml", "sh", "sql")

_PATTERNS = [
    # `payments/gateway/...`, `docs/x.md`, `tests/`: a folder of the repository,
    # not part of a URL path (`/api/v1/checkout/sessions`, `/docs/quickstart/`).
    re.compile(rf"(?<![\w/.-])(?:{'|'.join(map(re.escape, FOLDERS))})/[\w./:-]*"),
    # `wallet.md`, `manage.py`, `requirements.txt`
    re.compile(rf"\b[\w-]+\.(?:{'|'.join(EXTENSIONS)})\b"),
    # `payments.ledger.hooks`: a Python module path
    re.compile(rf"\b(?:{'|'.join(map(re.escape, PACKAGES))})(?:\.[a-z_]\w*)+"),
    # the design notes the service is built from
    re.compile(r"\bDESIGN\b"),
]


def repository_paths(text: str) -> list[str]:
    """Every mention of the repository's files in `text`."""
    return [match.group(0) for pattern in _PATTERNS for match in pattern.finditer(text)]
