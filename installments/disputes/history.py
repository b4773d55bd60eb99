"""The payment history of a disputed plan, a PDF attached to the merchant's
answer (DESIGN section 19): the plan, its schedule, and every collection the
ledger recorded for it (when, what for, how much, what refunds left of it),
with the disputed one marked. Made with fpdf2 in the agreement's style
(`installments/agreements/document.py`): core fonts, latin-1, amounts as
e-mails write them; the customer by public id only.

The ledger is read through its selectors only (`collections_of`,
`collections_left`)."""

from datetime import UTC, datetime

from django.utils import timezone
from fpdf import FPDF

from payments.ledger.selectors import collections_left, collections_of

from ..agreements.document import latin1, money

TITLE = "Payment history"


def history_filename(plan) -> str:
    return f"payment-history-{plan.public_id}.pdf"


def _resources(plan) -> dict:
    return {
        "payment_plan": [plan.public_id],
        "installment": plan.installments.values_list("public_id", flat=True),
    }


def _at(value: datetime) -> str:
    return f"{value.astimezone(UTC):%d %b %Y %H:%M} UTC"


class _Table:
    WIDTHS = (38, 62, 40, 34)

    def __init__(self, pdf: FPDF):
        self.pdf = pdf

    def row(self, cells, *, bold: bool = False) -> None:
        self.pdf.set_font("Helvetica", "B" if bold else "", 9)
        for width, cell in zip(self.WIDTHS, cells, strict=True):
            self.pdf.cell(width, 6, latin1(cell, 60))
        self.pdf.ln(6)


def _document(title: str, now) -> FPDF:
    pdf = FPDF(format="A4")
    pdf.set_creation_date(now.astimezone(UTC))
    pdf.set_title(title)
    pdf.set_creator("Installment checkout")
    pdf.set_margins(18, 18, 18)
    pdf.set_auto_page_break(True, margin=18)
    pdf.add_page()
    return pdf


def _heading(pdf: FPDF, text: str, size: int = 12) -> None:
    pdf.ln(2)
    pdf.set_font("Helvetica", "B", size)
    pdf.multi_cell(0, 7, latin1(text), new_x="LMARGIN", new_y="NEXT")


def _line(pdf: FPDF, label: str, value: str) -> None:
    pdf.set_font("Helvetica", "B", 10)
    pdf.cell(52, 6, latin1(label))
    pdf.set_font("Helvetica", "", 10)
    pdf.multi_cell(0, 6, latin1(value), new_x="LMARGIN", new_y="NEXT")


def _schedule(pdf: FPDF, plan) -> None:
    _heading(pdf, "Schedule")
    table = _Table(pdf)
    table.row(("Installment", "Due date", "Amount", "Status"), bold=True)
    for row in plan.installments.order_by("sequence"):
        table.row(
            (
                f"{row.sequence} of {plan.installment_count}",
                f"{row.due_date:%d %B %Y}",
                money(row.amount, plan.currency),
                row.status.replace("_", " "),
            )
        )


def _collections(pdf: FPDF, plan, disputed_reference: str) -> None:
    _heading(pdf, "Payments collected")
    table = _Table(pdf)
    left = {item.reference: item.left for item in collections_left(_resources(plan))}
    collections = collections_of(_resources(plan)).order_by("created_at", "id")
    table.row(("Date", "Reference", "Amount", "Not refunded"), bold=True)
    count = 0
    for at, reference, amount, description in collections.values_list(
        "created_at", "processor_reference", "amount", "description"
    ):
        count += 1
        mark = " (disputed)" if reference == disputed_reference else ""
        table.row(
            (
                f"{at.astimezone(UTC):%d %b %Y %H:%M}",
                f"{reference}{mark}",
                money(amount, plan.currency),
                money(left.get(reference, 0), plan.currency),
            )
        )
        if description:
            pdf.set_font("Helvetica", "I", 8)
            pdf.multi_cell(
                0, 4, latin1(description, 120), new_x="LMARGIN", new_y="NEXT"
            )
    if not count:
        pdf.set_font("Helvetica", "", 10)
        pdf.multi_cell(0, 6, "No payment collected.", new_x="LMARGIN", new_y="NEXT")


def history_pdf(plan, *, disputed_reference: str = "", now=None) -> bytes:
    """The plan's payment history as a PDF: the plan, its schedule, and every
    payment collected with what refunds left of it (the disputed one marked)."""
    now = now or timezone.now()
    pdf = _document(f"{TITLE}: {plan.public_id}", now)
    currency = plan.currency
    _heading(pdf, TITLE, 15)
    for label, value in (
        ("Plan", plan.public_id),
        ("Order reference", plan.order_reference),
        ("Customer", plan.customer.public_id),
        ("Merchant", plan.merchant.business_name),
        ("Order total", money(plan.total_amount, currency)),
        ("Deposit", money(plan.deposit_amount, currency)),
        ("Plan created", _at(plan.created_at)),
        ("Status", plan.status.replace("_", " ")),
        ("Printed", _at(now)),
    ):
        _line(pdf, label, value)
    _schedule(pdf, plan)
    _collections(pdf, plan, disputed_reference)
    return bytes(pdf.output())
