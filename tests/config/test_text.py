"""config.text: the one rule for typed text where it enters (no control
characters) and where it leaves in a message (one line, cut to a length)."""

import pytest
from django.core.exceptions import ValidationError

from config.text import no_control_characters, one_line


@pytest.mark.parametrize(
    "text, shown",
    [
        ("Adaeze Fabrics", "Adaeze Fabrics"),
        ("  Adaeze \t Fabrics\n", "Adaeze Fabrics"),
        ("Jumia\nAlert", "Jumia Alert"),
        ("Jumia\r\n\r\nAlert", "Jumia Alert"),
        ("Jumia\u2028Alert\u2029x", "Jumia Alert x"),
        ("Jumia\x85Alert\x0bx\x0cy", "Jumia Alert x y"),
        ("Jumia\x1b[31mAlert\x00", "Jumia [31mAlert"),
        ("Shop \u202egnp.exe\u202c", "Shop gnp.exe"),  # no reversed reading
        ("zero\u200bwidth", "zerowidth"),
        ("Ọjà Àdúnní", "Ọjà Àdúnní"),
        (42, "42"),
    ],
)
def test_one_line_keeps_text_on_one_line(text, shown):
    assert one_line(text, 60) == shown


def test_one_line_cuts_what_is_too_long_and_says_so():
    assert one_line("a" * 10, 10) == "a" * 10
    assert one_line("a" * 11, 10) == "aaaaaaa..."
    assert one_line("Shop. Verify at http://evil.example", 20) == "Shop. Verify at..."
    assert one_line("Shop. Verify at http://evil.example", 19) == "Shop. Verify at..."
    assert one_line("Shop Verify", 8) == "Shop..."
    assert len(one_line("x\n" * 500, 60)) == 60


@pytest.mark.parametrize(
    "value",
    ["Shop\nX", "Shop\rX", "Shop\tX", "Shop\x7fX", "Shop\x85X", "Shop\u2028X"],
)
def test_control_characters_and_line_breaks_are_refused(value):
    with pytest.raises(ValidationError, match="Line breaks and other control"):
        no_control_characters(value)


@pytest.mark.parametrize("value", ["Adaeze Fabrics", "Ọjà & Sons (Lagos) #1", ""])
def test_ordinary_names_pass(value):
    assert no_control_characters(value) is None
