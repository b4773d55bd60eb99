"""HTTP in/out for disputes (DESIGN section 19): the merchant's own, by API
key or merchant JWT; another merchant's dispute is a 404. The list, one
dispute, the answer with evidence (multipart with files, or JSON without),
acceptance, and resuming a plan after a loss."""

from rest_framework.views import APIView

from config.api import responses
from config.api.pagination import paginated
from config.api.parsers import SafeJSONParser, SafeMultiPartParser
from config.api.permissions import accepts
from merchants.audit.actors import actor_from_request
from merchants.authentication import resolve_merchant
from merchants.team.permissions import role_needs

from ..plans import selectors as plan_selectors
from ..plans.serializers import plan_output
from . import resume, selectors, services
from .files import attached_documents
from .serializers import (
    DisputeAcceptInput,
    DisputeEvidenceInput,
    DisputeEvidenceUpload,
    DisputeListQuery,
    dispute_output,
    evidence_files,
)

MERCHANT = accepts("api_key", "merchant_jwt")
# A member reads disputes with `view` and answers them with `plans`.
READ = [MERCHANT, role_needs("view")]
ANSWER = [MERCHANT, role_needs("plans")]


class DisputeListApi(APIView):
    """`GET /api/v1/disputes?status=&payment_plan_id=`: the merchant's
    disputes, the nearest deadline first, paginated with `total`."""

    permission_classes = READ

    def get(self, request):
        merchant = resolve_merchant(request)
        # A plain dict: given a QueryDict, DRF reads `?status=` (empty) as absent.
        query = DisputeListQuery(data=request.query_params.dict())
        query.is_valid(raise_exception=True)
        rows = selectors.disputes_of_merchant(
            merchant,
            status=query.validated_data.get("status"),
            plan_id=query.validated_data.get("payment_plan_id"),
        )
        return paginated(request, rows, dispute_output)


class DisputeDetailApi(APIView):
    """`GET /api/v1/disputes/<dispute_id>`."""

    permission_classes = READ

    def get(self, request, dispute_id):
        dispute = selectors.dispute_of_merchant(resolve_merchant(request), dispute_id)
        return responses.ok(dispute_output(dispute))


class DisputeEvidenceApi(APIView):
    """`POST /api/v1/disputes/<dispute_id>/evidence`: multipart/form-data (the
    text fields and up to 5 `files`) or JSON (the text fields only). Order of
    checks: credential, dispute (404), body (400), files (422), the dispute
    still taking an answer (409)."""

    permission_classes = ANSWER
    parser_classes = [SafeMultiPartParser, SafeJSONParser]

    def post(self, request, dispute_id):
        dispute = selectors.dispute_of_merchant(resolve_merchant(request), dispute_id)
        multipart = request.content_type.startswith("multipart/form-data")
        data = request.data
        if multipart:
            # One value per text field (the last, as a form reads it); every
            # `files` part.
            data = {
                **{key: data.get(key) for key in data if key != "files"},
                **({"files": data.getlist("files")} if "files" in data else {}),
            }
        values = (
            DisputeEvidenceUpload if multipart else DisputeEvidenceInput
        ).validated(data)
        files = evidence_files(values.pop("files", ()))
        delivery_date = values.pop("delivery_date", None)
        answer = services.Answer(
            customer_email=values.get("customer_email", ""),
            customer_name=values.get("customer_name", ""),
            customer_phone=values.get("customer_phone", ""),
            service_details=values["service_details"],
            delivery_address=values.get("delivery_address", ""),
            delivery_date=delivery_date.isoformat() if delivery_date else "",
            message=values.get("message", ""),
            files=files,
        )
        # The deadline and state are checked before the documents are made.
        services.dispute_answerable(dispute)
        dispute = services.dispute_answer(
            dispute=dispute,
            answer=answer,
            attached=attached_documents(dispute),
            actor=actor_from_request(request),
        )
        return responses.ok(dispute_output(dispute))


class DisputeAcceptApi(APIView):
    """`POST /api/v1/disputes/<dispute_id>/accept` `{message?}`: the customer
    keeps the money; the dispute is `accepted`."""

    permission_classes = ANSWER

    def post(self, request, dispute_id):
        dispute = selectors.dispute_of_merchant(resolve_merchant(request), dispute_id)
        values = DisputeAcceptInput.validated(request.data)
        dispute = services.dispute_accept(
            dispute=dispute,
            message=values.get("message", ""),
            actor=actor_from_request(request),
        )
        return responses.ok(dispute_output(dispute))


class PlanResumeApi(APIView):
    """`POST /api/v1/payment-plans/<plan_id>/resume`: a plan waiting
    `disputed` after a lost dispute is active again; answers the plan. 409
    `plan_not_resumable`."""

    permission_classes = [accepts("api_key")]

    def post(self, request, plan_id):
        plan = plan_selectors.plan_of_merchant(resolve_merchant(request), plan_id)
        resume.plan_resume(plan=plan, actor=actor_from_request(request))
        plan = plan_selectors.plans_with_installments().get(pk=plan.pk)
        return responses.ok(plan_output(plan))
