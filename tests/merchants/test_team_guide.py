"""docs/team.md prints the permission table the code enforces: the guide and
`merchants.team.roles` say the same, permission by permission, role by role."""

import re
from pathlib import Path

from merchants.team.roles import GRANTS, PERMISSIONS, Role

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "team.md"


def guide_table() -> dict[str, tuple[str, list[str]]]:
    rows = {}
    for line in GUIDE.read_text().splitlines():
        match = re.match(r"^\| `(\w+)` \| (.+?) \|((?: (?:yes|no) \|){6})$", line)
        if match:
            rows[match.group(1)] = (match.group(2), match.group(3).split("|")[:-1])
    return rows


def test_the_guide_prints_the_table_the_code_enforces():
    rows = guide_table()
    assert list(rows) == list(PERMISSIONS)
    for permission, (text, cells) in rows.items():
        assert text == PERMISSIONS[permission], permission
        granted = [cell.strip() == "yes" for cell in cells]
        assert granted == [permission in GRANTS[role] for role in Role.values], (
            permission
        )
