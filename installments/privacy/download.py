"""The customer's data as a download: the customer's page and the admin's
action answer with the same file."""

from django.http import HttpResponse
from django.utils import timezone

from payments.customers.models import Customer

from .export import customer_data_json


def data_download(customer: Customer) -> HttpResponse:
    """The customer's data as a JSON attachment, never cached."""
    response = HttpResponse(
        customer_data_json(customer), content_type="application/json"
    )
    stamp = timezone.now().strftime("%Y%m%d")
    response["Content-Disposition"] = (
        f'attachment; filename="data-{customer.public_id}-{stamp}.json"'
    )
    response["Cache-Control"] = "no-store"
    return response
