"""The agreement's PDF, made with fpdf2 from the key facts (DESIGN section 18):
the facts as the checkout's box showed them (with a bank mandate's terms for a
plan collected from one), the consent's time, the plan, the order and the
customer by public id only. No name, e-mail, phone, address or
browser of the customer is printed, so an erasure never needs to touch it.

The core PDF fonts are latin-1: amounts are written in the style of e-mails
(`config.money.TEXT`, the currency code), merchant text passes through
`config.text.one_line` and loses what latin-1 cannot say. The creation date
is the acceptance's, so the bytes are a function of the facts (the same facts
make the same file).
"""

from datetime import UTC, date, datetime

from fpdf import FPDF

from config.money import CURRENCY_SIGNS, TEXT, format_kobo
from config.text import one_line

TITLE = "Installment plan agreement: key facts"
LINE_LIMIT = 200
POLICY_LIMIT = 2000


def latin1(text: object, limit: int = LINE_LIMIT) -> str:
    """`text` on one line, in characters the core fonts can print."""
    flat = one_line(text, limit)
    flat = flat.replace("\u2026", "...")
    for code, sign in CURRENCY_SIGNS.items():
        flat = flat.replace(sign, f"{code} ")
    flat = flat.replace("\u2018", "'").replace("\u2019", "'")
    flat = flat.replace("\u201c", '"').replace("\u201d", '"')
    flat = flat.replace("\u2013", "-").replace("\u2014", "-")
    return flat.encode("latin-1", "replace").decode("latin-1")


def money(kobo: int, currency: str) -> str:
    return format_kobo(kobo, currency, style=TEXT)


def _day(iso: str) -> str:
    return f"{date.fromisoformat(iso):%d %B %Y}"


class _Document:
    def __init__(self, created: datetime):
        self.pdf = FPDF(format="A4")
        self.pdf.set_creation_date(created)
        self.pdf.set_title(TITLE)
        self.pdf.set_creator("Installment checkout")
        self.pdf.set_margins(18, 18, 18)
        self.pdf.set_auto_page_break(True, margin=18)
        self.pdf.add_page()

    def heading(self, text: str, size: int = 12) -> None:
        self.pdf.ln(2)
        self.pdf.set_font("Helvetica", "B", size)
        self.pdf.multi_cell(0, 7, latin1(text), new_x="LMARGIN", new_y="NEXT")

    def line(self, label: str, value: str) -> None:
        self.pdf.set_font("Helvetica", "B", 10)
        self.pdf.cell(62, 6, latin1(label))
        self.pdf.set_font("Helvetica", "", 10)
        self.pdf.multi_cell(0, 6, latin1(value), new_x="LMARGIN", new_y="NEXT")

    def text(self, value: str, limit: int = POLICY_LIMIT) -> None:
        self.pdf.set_font("Helvetica", "", 10)
        self.pdf.multi_cell(0, 5, latin1(value, limit), new_x="LMARGIN", new_y="NEXT")

    def bytes(self) -> bytes:
        return bytes(self.pdf.output())


def agreement_pdf(
    *,
    facts: dict,
    plan_id: str,
    order_reference: str,
    customer_id: str,
    accepted_at: datetime,
) -> bytes:
    """The PDF of an agreement: the same arguments make the same bytes."""
    accepted_at = accepted_at.astimezone(UTC)
    doc = _Document(accepted_at)
    currency = facts["currency"]
    merchant = facts["merchant"]
    doc.heading(TITLE, 15)
    doc.line("Plan", plan_id)
    doc.line("Order reference", order_reference)
    doc.line("Customer", customer_id)
    doc.line("Accepted at", f"{accepted_at:%d %B %Y %H:%M:%S} UTC")
    doc.line("Key facts version", facts["version"])

    doc.heading("The merchant")
    doc.line("Legal name", merchant["name"])
    if merchant["trading_name"] != merchant["name"]:
        doc.line("Trading as", merchant["trading_name"])
    doc.line("E-mail", merchant["support_email"] or "not given")
    doc.line("Phone", merchant["support_phone"] or "not given")
    doc.line("FCCPC registration", merchant["fccpc_registration_number"] or "not given")

    doc.heading("What you pay")
    doc.line("Cash price", money(facts["cash_price"], currency))
    doc.line("Deposit (paid at checkout)", money(facts["deposit"], currency))
    for row in facts["installments"]:
        doc.line(
            f"Installment {row['sequence']} of {len(facts['installments'])}",
            f"{money(row['amount'], currency)} on {_day(row['due_date'])}",
        )
    doc.line("Total payable", money(facts["total_payable"], currency))
    doc.line("Total cost of credit", money(facts["total_cost_of_credit"], currency))
    doc.line("Fees", "none" if not facts["fees"] else money(facts["fees"], currency))

    doc.heading("If a payment fails")
    doc.text(facts["failed_payment"]["text"])
    doc.heading("Cancellation and refunds")
    doc.text(facts["cancellation_and_refunds"])
    doc.heading("Complaints")
    doc.text(facts["complaints"])
    if facts.get("mandate_terms"):
        doc.heading("Bank mandate terms")
        doc.text(facts["mandate_terms"])
        doc.line("Mandate terms version", facts["mandate_terms_version"])
    return doc.bytes()
