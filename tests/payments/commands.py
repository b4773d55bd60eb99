"""The payments management commands run as an operator runs them."""

from io import StringIO

from django.core.management import call_command


def run_payouts(**options) -> str:
    out = StringIO()
    call_command("run_payouts", stdout=out, **options)
    return out.getvalue()


def check_ledger() -> str:
    out = StringIO()
    call_command("check_ledger", stdout=out)
    return out.getvalue()
