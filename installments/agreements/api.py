"""`GET /api/v1/payment-plans/{plan_id}/agreement` and its `.pdf` (DESIGN
section 18): the plan's merchant (API key) or its customer (customer JWT);
anyone else's plan is a 404, a plan without an agreement 404
`agreement_not_found`."""

from django.conf import settings
from django.urls import reverse
from rest_framework.views import APIView

from config.api import responses
from config.api.formats import iso_utc
from config.api.permissions import accepts, credential_kind
from merchants.authentication import resolve_merchant

from ..plans import selectors as plan_selectors
from . import selectors
from .models import Agreement


def _plan(request, plan_id):
    if credential_kind(request) == "api_key":
        return plan_selectors.plan_of_merchant(resolve_merchant(request), plan_id)
    return plan_selectors.plan_of_customer(request.user, plan_id)


def agreement_output(agreement: Agreement) -> dict:
    return {
        "version": agreement.version,
        "livemode": agreement.plan.merchant.livemode,
        "accepted_at": iso_utc(agreement.accepted_at),
        "document_sha256": agreement.document_sha256,
        "key_facts": agreement.key_facts,
        "document_url": settings.BASE_URL
        + reverse(
            "payment-plan-agreement-pdf", kwargs={"plan_id": agreement.plan.public_id}
        ),
    }


class PlanAgreementApi(APIView):
    permission_classes = [accepts("api_key", "customer_jwt")]

    def get(self, request, plan_id):
        agreement = selectors.agreement_of(_plan(request, plan_id))
        return responses.ok(agreement_output(agreement))


class PlanAgreementPdfApi(APIView):
    permission_classes = [accepts("api_key", "customer_jwt")]

    def get(self, request, plan_id):
        return selectors.pdf_response(selectors.agreement_of(_plan(request, plan_id)))
