"""HTTP in/out for endpoints 2 (create session), 3 (preview) and 4-6 (payment
links), the public session view and checkout completion."""

from rest_framework.views import APIView

from config.api import responses
from config.api.idempotency import REPLAYED_HEADER, idempotency_key
from config.api.ids import looks_like_public_id
from config.api.pagination import paginated
from config.api.permissions import accepts, credential_kind
from installments.plans.rules import NEW_CUSTOMER_SCORE
from installments.plans.serializers import plan_output
from merchants import selectors as merchant_selectors
from merchants.audit.actors import actor_from_request
from merchants.authentication import resolve_merchant
from merchants.errors import MerchantNotActive, MerchantNotFound
from payments.customers import selectors as customer_selectors

from . import selectors, services
from .consent import consent_of
from .errors import (
    CustomerNotFound,
    PaymentLinkNotFound,
    SessionNotFound,
)
from .key_facts import session_key_facts
from .models import LINK_ID_PREFIX
from .serializers import (
    CompleteInput,
    KeyFactsQuery,
    PaymentLinkCreateInput,
    PaymentLinkToggleInput,
    PreviewInput,
    SessionCreateInput,
    payment_link_output,
    preview_output,
    session_created_output,
    session_public_output,
)


class SessionCreateApi(APIView):
    """`POST /api/v1/checkout/sessions` (endpoint 2).

    Order of checks: credential (401/403), Idempotency-Key (400), body (400),
    merchant (404, then 403), replay of a live key, amount and currency (400),
    order already paid (409).
    """

    permission_classes = [accepts("api_key")]

    def post(self, request):
        key = idempotency_key(request)
        fields = SessionCreateInput.validated(request.data)
        merchant = resolve_merchant(request, fields.pop("merchant_id"))
        answer = services.session_create(
            merchant=merchant, idempotency_key=key, **fields
        )
        headers = {REPLAYED_HEADER: "true"} if answer.replayed else None
        return responses.no_store(
            responses.ok(
                session_created_output(answer.session),
                status=answer.status_code,
                headers=headers,
            )
        )


class SessionPublicApi(APIView):
    """`GET /api/v1/checkout/sessions/<token>`: what the widget shows. Public; the
    unguessable token is the only key."""

    authentication_classes = []

    def get(self, request, token):
        session = selectors.session_by_token(token)
        if session is None:
            raise SessionNotFound()
        return responses.ok(session_public_output(session))


def _merchant_open_to_customers(merchant_id: str):
    merchant = merchant_selectors.merchant_by_public_id(merchant_id)
    if merchant is None:
        raise MerchantNotFound()
    if not merchant.is_active:
        raise MerchantNotActive()
    return merchant


def _score_for(request, customer_id: str | None) -> int:
    """Whose score decides the deposit: an API key's named customer (else a new
    customer's), a customer JWT's own (no one else's: 404)."""
    if credential_kind(request) == "api_key":
        customer = (
            customer_selectors.customer_by_public_id(customer_id)
            if customer_id
            else None
        )
        return customer.score if customer is not None else NEW_CUSTOMER_SCORE
    if customer_id and customer_id != request.user.public_id:
        raise CustomerNotFound()
    return request.user.score


class PreviewApi(APIView):
    """`POST /api/v1/checkout/preview` (endpoint 3): an API key previews for any
    customer of its own merchant (unknown or absent customer: a new customer); a
    customer JWT previews for that customer only. Creates nothing."""

    permission_classes = [accepts("api_key", "customer_jwt")]

    def post(self, request):
        fields = PreviewInput.validated(request.data)
        merchant_id = fields.pop("merchant_id")
        customer_id = fields.pop("customer_id", None)
        if credential_kind(request) == "api_key":
            merchant = resolve_merchant(request, merchant_id)
        else:
            merchant = _merchant_open_to_customers(merchant_id)
        score = _score_for(request, customer_id)
        terms = selectors.plan_preview(merchant=merchant, score=score, **fields)
        return responses.ok(preview_output(terms))


class SessionKeyFactsApi(APIView):
    """`GET /api/v1/checkout/sessions/<token>/key-facts` (DESIGN section 18): the
    key facts of the plan a choice makes, for a merchant's own checkout page to
    show before the customer agrees. Credentials as the preview's; an API key
    sees its own merchant's sessions only."""

    permission_classes = [accepts("api_key", "customer_jwt")]

    def get(self, request, token):
        session = selectors.session_by_token(token)
        if session is None:
            raise SessionNotFound()
        if credential_kind(request) == "api_key":
            if resolve_merchant(request).pk != session.merchant_id:
                raise SessionNotFound()
        elif not session.merchant.is_active:
            raise MerchantNotActive()
        fields = KeyFactsQuery.validated(request.query_params)
        score = _score_for(request, fields.pop("customer_id", None))
        terms = selectors.plan_preview(
            merchant=session.merchant, score=score, amount=session.amount, **fields
        )
        return responses.ok(session_key_facts(session, terms))


class SessionCompleteApi(APIView):
    """`POST /api/v1/checkout/sessions/<token>/complete` (customer JWT): charge the
    deposit and start the plan; 201 with the plan (DESIGN section 11)."""

    permission_classes = [accepts("customer_jwt")]

    def post(self, request, token):
        values = CompleteInput.validated(request.data)
        consent = consent_of(request, values.pop("terms_accepted", False))
        plan = services.session_complete(
            token=token, customer=request.user, consent=consent, **values
        )
        return responses.created(plan_output(plan))


class PaymentLinkCreateApi(APIView):
    """4. `POST /api/v1/payment-links`."""

    permission_classes = [accepts("api_key")]

    def post(self, request):
        fields = PaymentLinkCreateInput.validated(request.data)
        merchant = resolve_merchant(request, fields.pop("merchant_id"))
        link = services.payment_link_create(
            merchant=merchant, **fields, actor=actor_from_request(request)
        )
        return responses.created(payment_link_output(link))


class PaymentLinkListApi(APIView):
    """5. `GET /api/v1/payment-links/merchant/<merchant_id>`: newest first, with
    `total`."""

    permission_classes = [accepts("api_key")]

    def get(self, request, merchant_id):
        merchant = resolve_merchant(request, merchant_id)
        return paginated(
            request, selectors.payment_links_of(merchant), payment_link_output
        )


class PaymentLinkToggleApi(APIView):
    """6. `PATCH /api/v1/payment-links/<id>/toggle` `{is_active}`."""

    permission_classes = [accepts("api_key")]

    def patch(self, request, link_id):
        merchant = resolve_merchant(request)
        if not looks_like_public_id(link_id, LINK_ID_PREFIX):
            raise PaymentLinkNotFound()
        values = PaymentLinkToggleInput.validated(request.data)
        link = services.payment_link_toggle(
            merchant=merchant,
            link_id=link_id,
            is_active=values["is_active"],
            actor=actor_from_request(request),
        )
        return responses.ok(payment_link_output(link))
