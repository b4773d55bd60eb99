"""`livemode` in every representation of a merchant's data (DESIGN section 21,
docs/test-mode.md), generated from the schema: every named object any endpoint
answers with (a merchant's, a customer's or a public one) carries `livemode`
as a required boolean, unless it is listed below with the reason it has no side.
test_documented_answers.py then holds the real answers to the schema, so a
representation that leaves it out fails there."""

import pytest
from django.urls import get_resolver

from config.api.schema_generator import Generator

# Objects the endpoints answer that are not a record of one side.
NO_SIDE = {
    "Error": "an error",
    "ExceptionError": "an error",
    "SoftError": "an error",
    "MerchantTokens": "sign-in tokens (of the account's member)",
    "MerchantMfaChallenge": "a sign-in step",
    "TokenPair": "sign-in tokens",
    "WebhookDeliveryOutcome": "what one POST to a URL did, stored nowhere",
    "WebhookReplayOutcome": "what one POST to a URL did",
    "PlanPreview": "a computation, stored nowhere",
    "KeyFacts": "the text of a document (its Agreement says the side)",
    "SandboxAdvanceDay": "a day's counts in the clock's answer (the plan beside)",
    "RefundPart": "a part inside its Refund, which says the side",
    "Reschedule": "a history row inside its plan, which says the side",
    "Customer": "customers are people, not one merchant's or one side's",
    "CustomerTokens": "sign-in tokens",
    "CustomerPasswordResetSent": "a message",
    "ProcessorPaystackEvent": "the processor's callback, not ours",
    "ProcessorRevocationEvent": "the processor's callback, not ours",
    "Bank": "a bank of the processor's list",
    "MandateStep": "a step of adding a method",
}


@pytest.fixture(scope="module")
def openapi():
    get_resolver()
    return Generator().get_schema(public=True)


def _named_objects(node, components, found, seen_refs):
    """Every component name reachable from `node` (through `$ref`s)."""
    if isinstance(node, dict):
        ref = node.get("$ref")
        if ref:
            name = ref.rsplit("/", 1)[1]
            if name not in seen_refs:
                seen_refs.add(name)
                found.add(name)
                _named_objects(components[name], components, found, seen_refs)
            return
        for value in node.values():
            _named_objects(value, components, found, seen_refs)
    elif isinstance(node, list):
        for value in node:
            _named_objects(value, components, found, seen_refs)


def _answers(openapi) -> dict[str, set[str]]:
    """{component: operations} of every endpoint's success answers."""
    components = openapi["components"]["schemas"]
    found: dict[str, set[str]] = {}
    for path, operations in openapi["paths"].items():
        for method, operation in operations.items():
            if not isinstance(operation, dict) or "responses" not in operation:
                continue
            for status, answer in operation["responses"].items():
                if not status.startswith("2"):
                    continue
                names: set[str] = set()
                _named_objects(answer.get("content", {}), components, names, set())
                for name in names:
                    found.setdefault(name, set()).add(f"{method.upper()} {path}")
    return found


def _properties(schema: dict, components: dict) -> tuple[dict, set]:
    """Properties and required names of an object schema (`allOf` merged)."""
    properties, required = (
        dict(schema.get("properties", {})),
        set(schema.get("required", [])),
    )
    for part in schema.get("allOf", []):
        if "$ref" in part:
            part = components[part["$ref"].rsplit("/", 1)[1]]
        more, more_required = _properties(part, components)
        properties.update(more)
        required |= more_required
    return properties, required


def test_every_answer_of_a_merchants_data_says_its_side(openapi):
    components = openapi["components"]["schemas"]
    answers = _answers(openapi)
    objects = {
        name
        for name in answers
        if components[name].get("type") == "object" or "allOf" in components[name]
    }
    assert {"PaymentPlan", "WebhookEventEnvelope", "Merchant"} <= objects

    missing = {}
    for name in sorted(objects - set(NO_SIDE)):
        properties, required = _properties(components[name], components)
        livemode = properties.get("livemode", {})
        if livemode.get("type") != "boolean" or "livemode" not in required:
            missing[name] = sorted(answers[name])[:2]
    assert missing == {}


def test_every_object_without_a_side_is_still_answered(openapi):
    # A name left here after its object went away would hide a new one.
    answered = set(_answers(openapi)) | set(openapi["components"]["schemas"])
    assert set(NO_SIDE) <= answered
