"""Pages of the sandbox processor, standing in for the processor's own site
(DESIGN section 9): the card form behind `authorization_url`, the bank's
mandate popup behind an `open_url` step and the direct-debit consent page.
CSRF-exempt and without login, as a processor's hosted page would be. They serve
the sandbox's transactions on every deployment: a sandbox deployment's, and the
test side's where the live processor is a real one (a customer paying in a test
checkout is sent here)."""

from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from django.http import Http404, HttpResponseRedirect
from django.shortcuts import render
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods

from config.money import TEXT, format_kobo
from config.web.security_headers import allow_form_targets

from .models import SandboxTransaction
from .processors import sandbox_processor
from .processors.sandbox import SandboxInputError, SandboxProcessor
from .processors.sandbox.values import (
    CARD_DECLINED,
    CARD_DISPUTED,
    CARD_EXPIRES_THIS_MONTH,
    CARD_FAILS_TWICE,
    CARD_INSUFFICIENT_FUNDS,
    CARD_PARTIAL_FUNDS,
    CARD_REFUNDS_FAIL,
    CARD_SUCCEEDS,
)

TEST_CARDS = [
    (CARD_SUCCEEDS, "authorizes; later charges succeed"),
    (CARD_INSUFFICIENT_FUNDS, "authorizes; later charges fail: insufficient funds"),
    (CARD_REFUNDS_FAIL, "authorizes; later charges succeed, their refunds fail"),
    (
        CARD_EXPIRES_THIS_MONTH,
        "authorizes; expires at the end of this month, later charges then fail",
    ),
    (
        CARD_FAILS_TWICE,
        "authorizes; each installment's first two attempts fail, the third pays",
    ),
    (
        CARD_PARTIAL_FUNDS,
        "authorizes; has only part of the money: a partial debit takes 60%",
    ),
    (
        CARD_DISPUTED,
        "authorizes; later charges succeed, each is disputed a minute later",
    ),
    (CARD_DECLINED, "declined at authorization"),
]


def _sandbox() -> SandboxProcessor:
    processor = sandbox_processor()
    if not isinstance(processor, SandboxProcessor):
        raise Http404("The sandbox processor is not in use.")
    return processor


def _transaction(reference: str, kind: str) -> SandboxTransaction:
    row = SandboxTransaction.objects.filter(reference=reference, kind=kind).first()
    if row is None:
        raise Http404("No sandbox transaction has this reference.")
    return row


def with_reference(url: str, reference: str) -> str:
    """`callback_url?reference=<reference>`, keeping the URL's own query."""
    parts = urlsplit(url)
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True)]
    query = [(k, v) for k, v in query if k != "reference"] + [("reference", reference)]
    return urlunsplit(parts._replace(query=urlencode(query)))


@csrf_exempt
@require_http_methods(["GET", "POST"])
def authorize(request, reference):
    processor = _sandbox()
    row = _transaction(reference, SandboxTransaction.Kind.CARD_CHECKOUT)
    # The form is answered with a redirect to the callback, often another site
    # (a consumer app): the page's CSP must let the submission go there.
    allow_form_targets(request, [row.callback_url])
    error = ""
    if request.method == "POST":
        try:
            row = processor.authorize_card(
                reference=reference, card_number=request.POST.get("card_number", "")
            )
        except SandboxInputError as bad:
            error = str(bad)
        else:
            return HttpResponseRedirect(with_reference(row.callback_url, reference))
    return render(
        request,
        "payments/sandbox/authorize.html",
        {
            "transaction": row,
            "amount": format_kobo(row.amount, row.currency, style=TEXT),
            "cards": TEST_CARDS,
            "error": error,
        },
        status=400 if error else 200,
    )


@csrf_exempt
@require_http_methods(["GET", "POST"])
def mandate(request, reference):
    processor = _sandbox()
    row = _transaction(reference, SandboxTransaction.Kind.BANK_CHARGE)
    if request.method == "POST":
        row = processor.authorize_mandate(reference=reference)
    return render(request, "payments/sandbox/mandate.html", {"transaction": row})


@csrf_exempt
@require_http_methods(["GET", "POST"])
def direct_debit(request, reference):
    """Paystack's direct-debit consent page: consenting redirects to the
    request's callback_url, as Paystack does."""
    processor = _sandbox()
    row = _transaction(reference, SandboxTransaction.Kind.DIRECT_DEBIT)
    allow_form_targets(request, [row.callback_url])
    if request.method == "POST":
        processor.authorize_direct_debit(reference=reference)
        return HttpResponseRedirect(with_reference(row.callback_url, reference))
    return render(request, "payments/sandbox/direct_debit.html", {"transaction": row})
