"""The README's curl walkthrough shows what the service really prints.

The walkthrough is run step by step against the real API and the real
`approve_merchant` command; each output the README shows (the `# {...}` lines and
the command's summary line) must match what came back, with `…` standing for the
parts that differ per run (ids, time stamps) and `Ab12` for a key's first four
characters.
"""

import re
from io import StringIO
from pathlib import Path

import pytest
from django.core import mail
from django.core.management import call_command

README = Path(__file__).resolve().parents[2] / "README.md"


def _walkthrough_outputs() -> list[str]:
    blocks = [b.split("```", 1)[0] for b in README.read_text().split("```sh")[1:]]
    (block,) = [b for b in blocks if "curl" in b]
    return [
        line.removeprefix("# ").strip()
        for line in block.splitlines()
        if line.startswith("# {") or line.startswith("# mer_")
    ]


def _pattern(shown: str) -> re.Pattern:
    escaped = re.escape(shown).replace("…", ".+?").replace("Ab12", "[A-Za-z0-9_-]{4}")
    return re.compile(f"^{escaped}$")


def _assert_shows(shown: str, real: str) -> None:
    assert _pattern(shown).match(real), (
        f"README shows\n  {shown}\nthe service printed\n  {real}"
    )


@pytest.mark.django_db
def test_readme_outputs_match_what_the_service_prints(api, committed):
    outputs = _walkthrough_outputs()
    assert len(outputs) == 3, outputs
    register_shown, history_shown, approve_shown = outputs

    response = api.post(
        "/api/v1/auth/merchant/register",
        {
            "email": "owner@mystore.ng",
            "password": "Kente-and-Aso-0ke",
            "business_name": "My Store",
            "business_url": "https://mystore.ng",
        },
        format="json",
    )
    _assert_shows(register_shown, response.content.decode())

    # Still pending: the walkthrough's test keys need no approval.
    login = api.post(
        "/api/v1/auth/merchant/login",
        {"email": "owner@mystore.ng", "password": "Kente-and-Aso-0ke"},
        format="json",
    ).json()["data"]
    mid = login["merchant_id"]

    def rotate(token: str, name: str, mode: str) -> str:
        answer = api.post(
            f"/api/v1/merchant/{mid}/rotate-api-key",
            {"name": name, "mode": mode},
            format="json",
            HTTP_AUTHORIZATION=f"Bearer {token}",
        )
        assert answer.status_code == 201, answer.content
        return answer.json()["data"]["apiKey"]

    key1 = rotate(login["access"], "first key", "test")
    assert key1.startswith("service_test_sk_")
    key2 = rotate(key1, "second key", "test")
    history = f"/api/v1/merchant/{mid}/api-key/history"
    assert api.get(history, HTTP_AUTHORIZATION=f"Bearer {key1}").status_code == 401
    response = api.get(history, HTTP_AUTHORIZATION=f"Bearer {key2}")
    _assert_shows(history_shown, response.content.decode())

    mail.outbox.clear()
    out = StringIO()
    with committed():
        call_command(
            "approve_merchant", "owner@mystore.ng", "--enable-api-access", stdout=out
        )
    _assert_shows(approve_shown, out.getvalue().strip())
    assert [m.subject for m in mail.outbox] == [
        "Your merchant account is approved",
        "API access enabled",
    ]
    assert rotate(login["access"], "production", "live").startswith("service_live_sk_")


@pytest.mark.parametrize(
    "shown, real, matches",
    [
        ('{"ok":true}', '{"ok": true}', False),
        ('{"id":"mer_…"}', '{"id":"mer_x1"}', True),
    ],
)
def test_readme_comparison_tells_spaced_from_compact_json(shown, real, matches):
    assert bool(_pattern(shown).match(real)) is matches
