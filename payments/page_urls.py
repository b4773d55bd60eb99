"""Pages of the payments app outside /api/v1 (mounted by config/urls.py)."""

from django.urls import path
from django.views.generic import TemplateView

from .gateway import pages

urlpatterns = [
    # Where the processor sends the customer after consenting to a direct debit
    # (the callback_url of its authorization request): says to go back to the
    # app, which finishes with bank-mandate/verify. Shows nothing of the mandate.
    path(
        "payment-methods/mandate-authorized",
        TemplateView.as_view(template_name="payments/mandate_authorized.html"),
        name="mandate-authorized",
    ),
    path(
        "sandbox/authorize/<str:reference>",
        pages.authorize,
        name="sandbox-authorize",
    ),
    path("sandbox/mandate/<str:reference>", pages.mandate, name="sandbox-mandate"),
    path(
        "sandbox/direct-debit/<str:reference>",
        pages.direct_debit,
        name="sandbox-direct-debit",
    ),
]
