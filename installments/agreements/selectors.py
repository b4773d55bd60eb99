"""Reading an agreement, and serving its PDF: every route (the customer's
account, the dashboard, the API, the admin) answers the bytes stored when it
was made, so they hash to `document_sha256` every time."""

from django.http import HttpResponse

from .errors import AgreementNotFound
from .models import Agreement


def agreement_of(plan) -> Agreement:
    """`plan`'s agreement (the caller has checked the plan is the reader's)."""
    agreement = (
        Agreement.objects.filter(plan=plan).select_related("plan__merchant").first()
    )
    if agreement is None:
        raise AgreementNotFound()
    return agreement


def has_agreement(plan) -> bool:
    return Agreement.objects.filter(plan=plan).exists()


def pdf_filename(agreement: Agreement) -> str:
    return f"agreement-{agreement.plan.public_id}.pdf"


def pdf_response(agreement: Agreement) -> HttpResponse:
    """The stored PDF, as a download nobody caches."""
    response = HttpResponse(bytes(agreement.document), content_type="application/pdf")
    response["Content-Disposition"] = (
        f'attachment; filename="{pdf_filename(agreement)}"'
    )
    response["Cache-Control"] = "no-store"
    return response
