"""One money formatter (`config.money`, docs/decisions.md "One money
formatter"): its rule, and a guard that no other module formats naira by hand."""

import re
from decimal import Decimal
from pathlib import Path

import pytest
from django.template import Context, Template

from config import exports
from config.money import CSV, PAGE, TEXT, format_kobo, naira, naira_to_kobo
from installments.notifications import emails

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("kobo", "page", "text", "csv"),
    [
        (0, "₦0.00", "NGN 0.00", "0.00"),
        (1, "₦0.01", "NGN 0.01", "0.01"),
        (99, "₦0.99", "NGN 0.99", "0.99"),
        (100, "₦1.00", "NGN 1.00", "1.00"),
        (101, "₦1.01", "NGN 1.01", "1.01"),
        (123456, "₦1,234.56", "NGN 1,234.56", "1234.56"),
        (99999999, "₦999,999.99", "NGN 999,999.99", "999999.99"),
        (100000000, "₦1,000,000.00", "NGN 1,000,000.00", "1000000.00"),
        (
            9_223_372_036_854_775_807,  # the largest BigIntegerField
            "₦92,233,720,368,547,758.07",
            "NGN 92,233,720,368,547,758.07",
            "92233720368547758.07",
        ),
        (-1, "-₦0.01", "-NGN 0.01", "-0.01"),
        (-99, "-₦0.99", "-NGN 0.99", "-0.99"),
        (-117000, "-₦1,170.00", "-NGN 1,170.00", "-1170.00"),
    ],
)
def test_every_style_writes_the_same_kobo(kobo, page, text, csv):
    assert format_kobo(kobo) == page
    assert format_kobo(kobo, style=PAGE) == page
    assert format_kobo(kobo, style=TEXT) == text
    assert format_kobo(kobo, style=CSV) == csv


def test_a_negative_amount_keeps_its_kobo_in_messages():
    """The e-mails' own formatter wrote -1 kobo as "NGN -1.99" (floor division)."""
    assert format_kobo(-1, style=TEXT) == "-NGN 0.01"
    assert format_kobo(-150, style=TEXT) == "-NGN 1.50"


@pytest.mark.parametrize("kobo", [0, 1, 99, 123456, -1, -117000, 10**15 + 7])
def test_every_channel_writes_money_through_the_one_formatter(kobo):
    """Pages (both template libraries), e-mail and SMS texts, CSV cells."""
    page = Template("{% load money %}{{ kobo|naira }}|{% load kobo %}{{ kobo|naira }}")

    assert page.render(Context({"kobo": kobo})).split("|") == [format_kobo(kobo)] * 2
    assert emails.naira(kobo) == format_kobo(kobo, style=TEXT)
    assert exports.naira(kobo) == format_kobo(kobo, style=CSV)
    assert exports.naira(None) == ""


def test_an_email_writes_a_negative_amount_with_its_kobo():
    """The e-mails' own formatter used floor division: -1 kobo read "NGN -1.99"."""
    assert emails.naira(-1) == "-NGN 0.01"
    assert emails.naira(-150) == "-NGN 1.50"


def test_another_currency_is_written_with_its_code():
    assert format_kobo(123456, "USD") == "USD 1,234.56"
    assert format_kobo(123456, "USD", style=TEXT) == "USD 1,234.56"
    assert format_kobo(123456, "USD", style=CSV) == "1234.56"


def test_a_whole_number_of_kobo_in_another_type_is_formatted():
    assert format_kobo(Decimal("123456")) == "₦1,234.56"
    assert format_kobo(123456.0) == "₦1,234.56"


@pytest.mark.parametrize("fraction", [Decimal("100.5"), 100.5, 0.1])
def test_a_fraction_of_a_kobo_is_refused_not_rounded(fraction):
    with pytest.raises(ValueError, match="not a whole number of kobo"):
        format_kobo(fraction)


def test_a_bool_is_not_an_amount():
    with pytest.raises(TypeError):
        format_kobo(True)


def test_an_unknown_style_is_refused():
    with pytest.raises(ValueError, match="unknown money style"):
        format_kobo(100, style="euro")


def test_the_template_filter_shows_nothing_for_no_amount():
    assert naira(None) == ""
    assert naira("") == ""
    assert naira(0) == "₦0.00"
    assert naira(123456, "NGN") == "₦1,234.56"


@pytest.mark.parametrize("kobo", [0, 1, 99, 100, 123456, 2_500_050, 99_999_999_99])
def test_what_a_page_shows_reads_back_as_the_same_kobo(kobo):
    assert naira_to_kobo(format_kobo(kobo)) == kobo
    assert naira_to_kobo(format_kobo(kobo, style=CSV)) == kobo


# --- no naira formatted by hand --------------------------------------------

# What formatting money by hand looks like: kobo split by 100 for display, a
# float with two decimals, the currency code or sign glued to a number.
HAND_FORMATTING = {
    "split by 100": re.compile(
        r"(?<!/)//\s*100\b[^\n]*:,|%\s*100\s*:02d|divmod\(.*,\s*100\s*\)"
    ),
    "float with two decimals": re.compile(r":,?\.2f|(?<!/)/\s*100(?:\.0*)?\b"),
    "the currency code before an amount": re.compile(r"\bNGN (?=[{\d\"'])"),
    "a currency sign mapping": re.compile(r"CURRENCY_SIGNS\s*="),
    "a naira amount written by hand": re.compile(r"₦\s*\d[\d,]*\.\d"),
}
TEMPLATE_HAND_FORMATTING = {
    "an amount next to a currency": re.compile(
        r"(?:₦|NGN|currency\s*\}\})\s*\{\{(?![^}]*\|naira)"
    ),
    "a number filter on an amount": re.compile(r"\|\s*(?:floatformat|intcomma)"),
    "a naira amount written by hand": re.compile(r"₦\s*\d[\d,]*\.\d"),
}

# (path, what) -> why it may stay.
ALLOWED = {
    ("installments/plans/rules.py", "float with two decimals"): (
        "a docstring saying the deposit's percentage in words: "
        "ceil(amount * percent / 100)"
    ),
}
APPS = ("checkout", "installments", "payments", "webhooks", "merchants", "config")
FORMATTER = ROOT / "config" / "money.py"  # where the rule is written, once


def _sources():
    for app in APPS:
        for path in sorted((ROOT / app).rglob("*.py")):
            if "migrations" not in path.parts and path != FORMATTER:
                yield path


def _hand_formatting(paths, patterns):
    found = []
    for path in paths:
        relative = path.relative_to(ROOT).as_posix()
        for number, line in enumerate(path.read_text().splitlines(), start=1):
            for what, pattern in patterns.items():
                if pattern.search(line) and (relative, what) not in ALLOWED:
                    found.append(f"{relative}:{number}: {what}: {line.strip()}")
    return found


def test_no_module_formats_naira_by_hand():
    """Money shown to a person goes through `config.money.format_kobo` (or the
    `naira` template filter over it); one rule, one place."""
    assert _hand_formatting(_sources(), HAND_FORMATTING) == []


def test_no_template_formats_naira_by_hand():
    templates = sorted((ROOT / "templates").rglob("*.html"))
    assert templates
    assert _hand_formatting(templates, TEMPLATE_HAND_FORMATTING) == []


def test_the_allow_list_names_only_lines_that_are_there():
    """An allowance whose line has gone is removed too, or it hides the next."""
    everything = {**TEMPLATE_HAND_FORMATTING, **HAND_FORMATTING}
    for (relative, what), _why in ALLOWED.items():
        text = (ROOT / relative).read_text()
        assert everything[what].search(text), (relative, what)
