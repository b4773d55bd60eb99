"""Schemathesis against the live WSGI app, generated from GET /api/v1/schema/.

Every operation of the schema is called with generated valid and invalid input,
carrying a real credential of the kind its security scheme names (API key,
merchant JWT, customer JWT, or a correct processor signature over the exact body
sent), and must pass not_a_server_error, status_code_conformance,
response_schema_conformance, negative_data_rejection, positive_data_acceptance
(what the schema admits, the server accepts) and ignored_auth.

The first negative case of each processor endpoint (signed inbound), and a quarter
of the later ones, send the world's deeply nested event instead of the generated
body.

Half the valid cases carry the ids of real objects (the signed-in merchant, the
customer, their payment methods, event, payment link, plan, an installment of it
still to pay, a dispute and a fresh checkout session) instead of random ones,
filters their event and dispute pass, evidence files of a type disputes take,
and values the business rules accept, so success answers are checked against
the schema too, not only 404s.

FUZZ_EXAMPLES sets the examples per operation (15 in `make test`, 100 in .ci/run).
"""

import hashlib
import json
from datetime import timedelta

import pytest
import schemathesis
from django.contrib.auth.password_validation import validate_password
from django.core import signals
from django.core.exceptions import ValidationError
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from django.utils import timezone
from hypothesis import HealthCheck, assume, settings
from schemathesis.checks import not_a_server_error
from schemathesis.core import NotSet
from schemathesis.specs.openapi.checks import (
    ignored_auth,
    negative_data_rejection,
    positive_data_acceptance,
    response_schema_conformance,
    status_code_conformance,
)

from config.api.formats import iso_utc
from merchants.models import Merchant
from payments.gateway.services.inbound import SIGNATURE_HEADER, signature_for
from payments.models import Customer

from .conftest import FUZZ_EXAMPLES

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    response_schema_conformance,
    negative_data_rejection,
    positive_data_acceptance,
    ignored_auth,
]
KIND_OF_SCHEME = {
    "ApiKey": "api_key",
    "MerchantJWT": "merchant_jwt",
    "CustomerJWT": "customer_jwt",
}

schema = schemathesis.openapi.from_wsgi("/api/v1/schema/", get_wsgi_application())

# Cases are generated before any test runs (and before the database exists), so
# generation marks where a real credential goes; the test puts it there.
PLACEHOLDER = "fuzz-credential"


def _schemes(case) -> list[str]:
    security = case.operation.definition.raw.get("security", [])
    return [name for requirement in security for name in requirement]


@schema.auth(refresh_interval=None, retry_on=[])
class RealCredentials:
    def get(self, case, ctx):
        schemes = _schemes(case)
        if not schemes:
            return None
        if schemes == ["ProcessorSignature"]:
            return {SIGNATURE_HEADER: PLACEHOLDER}
        return {"Authorization": f"Bearer {PLACEHOLDER}"}

    def set(self, case, data, ctx):
        case.headers = {**(case.headers or {}), **data}


def _fingerprint(case) -> int:
    """Stable per generated input, so a replayed example behaves the same."""
    text = json.dumps(
        [case.path_parameters, case.query, case.body], sort_keys=True, default=repr
    )
    return int(hashlib.sha256(text.encode()).hexdigest(), 16)


def _put_real_credential(case, world) -> None:
    """The placeholder becomes a real credential: for operations taking several
    kinds, the input's fingerprint picks one, so every kind gets exercised."""
    headers = dict(case.headers or {})
    if headers.get(SIGNATURE_HEADER) == PLACEHOLDER:
        # The WSGI transport sends json.dumps(body) for a JSON body.
        body = case.body
        if isinstance(body, NotSet):
            raw = b""
        elif isinstance(body, bytes):
            raw = body
        else:
            raw = json.dumps(body).encode()
        headers[SIGNATURE_HEADER] = signature_for(raw)
    if headers.get("Authorization") == f"Bearer {PLACEHOLDER}":
        schemes = [name for name in _schemes(case) if name in KIND_OF_SCHEME]
        scheme = schemes[_fingerprint(case) % len(schemes)]
        headers["Authorization"] = f"Bearer {world.me.token(KIND_OF_SCHEME[scheme])}"
    case.headers = headers


def _put_real_ids(case, world) -> None:
    """Half the valid cases name real objects, so success answers are checked.

    The ids in the path, the query and the body become `me`'s own (a session path
    gets a fresh open session, so each such case can complete it), and the body's
    business values ones the rules accept (NGN, an amount in bounds, a schedule
    and count the merchant offers, a bank of the processor's list and an account
    it can debit, installment bounds that fit the stored ones whichever is sent),
    so the case can get past them to a success.
    """
    meta = case.meta
    fingerprint = _fingerprint(case)
    if meta is None or meta.generation.mode.is_negative or fingerprint % 4 > 1:
        return
    ids = {
        "merchant_id": lambda: world.me.merchant.public_id,
        "customer_id": lambda: world.me.customer.public_id,
        "method_id": lambda: world.card.public_id,
        "payment_method_id": lambda: world.card.public_id,
        "event_id": lambda: world.event.public_id,
        "link_id": lambda: world.link.public_id,
        "plan_id": lambda: world.plan.public_id,
        "payout_id": lambda: world.payout.public_id,
        "installment_id": world.unpaid_installment_id,
        "payment_id": lambda: world.payment.public_id,
        "dispute_id": lambda: world.dispute.public_id,
        "token": world.open_session,
        "order_reference": lambda: world.plan.order_reference,
    }
    for name in case.path_parameters or {}:
        if name in ids:
            case.path_parameters[name] = ids[name]()
    if isinstance(case.query, dict) and "order_reference" in case.query:
        case.query["order_reference"] = ids["order_reference"]()
    if isinstance(case.query, dict) and case.operation.path == "/api/v1/events":
        # Filters the world's event passes, so the list has an item to check.
        if "type" in case.query:
            case.query["type"] = world.event.event_type
        if "created_after" in case.query:
            before = world.event.created_at - timedelta(seconds=1)
            case.query["created_after"] = iso_utc(before)
    query = case.query if isinstance(case.query, dict) else {}
    if case.operation.path == "/api/v1/disputes" and "payment_plan_id" in query:
        query["payment_plan_id"] = world.dispute.plan.public_id
    if isinstance(case.query, dict) and case.operation.path.endswith("/key-facts"):
        # A choice the world's merchant offers, for `me` (or a new customer).
        case.query.update(
            schedule_type="monthly", installment_count=1 + fingerprint % 3
        )
        if "customer_id" in case.query:
            case.query["customer_id"] = ids["customer_id"]()
    body = case.body
    if case.operation.path.endswith("/evidence"):
        _put_real_evidence_files(case)
    if case.operation.path.endswith("/reschedule"):
        _put_real_reschedule(case, world)
    if not isinstance(body, dict):
        return
    for name in ("merchant_id", "customer_id", "payment_method_id", "installment_id"):
        if isinstance(body.get(name), str):
            body[name] = ids[name]()
    reset = case.operation.path == "/api/v1/auth/customer/password-reset"
    if reset and isinstance(body.get("email"), str):
        # An address with an account, so the reset e-mail is sent too.
        body["email"] = world.me.customer.email
    acceptable = {
        "currency": (str, "NGN"),
        "amount": (int, 10_000 + fingerprint % 1_000_000),
        "schedule_type": (str, "monthly"),
        "installment_count": (int, 1 + fingerprint % 3),
        "bank_code": (str, world.bank.bank_code),
        # The sandbox debits accounts ending in 0-3 (each its own mandate flow).
        "account_number": (str, f"012345678{fingerprint % 4}"),
        "min_installments": (int, 1),
        "max_installments": (int, 12),
    }
    if case.operation.path.endswith("/advance"):
        # The sandbox clock, run to today: the world's plan keeps its schedule.
        acceptable["to"] = (str, timezone.localdate().isoformat())
    if case.operation.path.endswith("/refunds"):
        # A refund the world's plan can still take after every example before.
        acceptable["amount"] = (int, 1 + fingerprint % 100)
    for name, (kind, value) in acceptable.items():
        if isinstance(body.get(name), kind) and not isinstance(body[name], bool):
            body[name] = value


# The smallest file a dispute's evidence takes: known by its first bytes.
EVIDENCE_PDF = b"%PDF-1.4\n%%EOF\n"


def _put_real_evidence_files(case) -> None:
    """A dispute's evidence files are known by their content (a PDF, JPEG or
    PNG), which the schema cannot state: the generated files become PDFs."""
    body = case.body
    if isinstance(body, dict) and isinstance(body.get("files"), list):
        body["files"] = [EVIDENCE_PDF for _ in body["files"]]


def _put_real_reschedule(case, world) -> None:
    """A reschedule names an installment of a new plan and a date it may move
    to: one the customer's allowance (one move per plan) still takes, whichever
    credential the case carries."""
    plan_id, installment_id, due_date = world.fresh_reschedule()
    case.path_parameters["plan_id"] = plan_id
    case.path_parameters["installment_id"] = installment_id
    if isinstance(case.body, dict) and isinstance(case.body.get("due_date"), str):
        case.body["due_date"] = due_date


def _put_deep_inbound_body(case, world) -> None:
    """A signed processor endpoint gets the world's event nested thousands of
    levels deep: the generator never nests that far, and such a body once
    answered 500 there and left its stored row half-recorded."""
    if _schemes(case) != ["ProcessorSignature"]:
        return
    # Only in place of a body generated to be refused: the schema cannot state a
    # nesting limit, so positive_data_acceptance would count the 400 against it.
    if case.meta is None or not case.meta.generation.mode.is_negative:
        return
    label = case.operation.label
    if label in world.deep_inbound_sent and _fingerprint(case) % 4 != 3:
        return
    world.deep_inbound_sent.add(label)
    case.body = world.deep_inbound_body
    case.media_type = "application/json"


ACCOUNT_OF_REGISTRATION = {
    "/api/v1/auth/merchant/register": Merchant,
    "/api/v1/auth/customer/register": Customer,
}


def _breaks_unstated_password_rules(case) -> bool:
    """A valid registration whose password Django's validators refuse for what no
    schema can state (a common password, or one too like the e-mail address or
    names; the schema says so in words): not a case positive_data_acceptance can
    judge."""
    account = ACCOUNT_OF_REGISTRATION.get(case.operation.path)
    body = case.body
    meta = case.meta
    if account is None or meta is None or meta.generation.mode.is_negative:
        return False
    if not isinstance(body, dict) or not isinstance(body.get("password"), str):
        return False
    attributes = {
        name: value.strip()
        for name, value in body.items()
        if name in ("email", "first_name", "last_name", "business_name")
        and isinstance(value, str)
    }
    try:
        validate_password(body["password"], user=account(**attributes))
    except ValidationError:
        return True
    return False


@pytest.fixture
def wsgi_in_test_transaction():
    """The real WSGI handler closes the database connection after each request
    (request_finished); inside a test's transaction it must not, as Django's own
    test client arranges."""
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    yield
    signals.request_started.connect(close_old_connections)
    signals.request_finished.connect(close_old_connections)


@schema.parametrize()
@settings(
    max_examples=FUZZ_EXAMPLES,
    deadline=None,
    database=None,
    suppress_health_check=list(HealthCheck),
)
def test_operation_conforms_to_the_schema(case, world, wsgi_in_test_transaction):
    assume(not _breaks_unstated_password_rules(case))
    _put_real_ids(case, world)
    _put_deep_inbound_body(case, world)
    _put_real_credential(case, world)
    case.call_and_validate(checks=CHECKS)
