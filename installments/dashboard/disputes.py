"""Dashboard pages of disputes (DESIGN section 19): the merchant's disputes,
open ones first by their deadline; one dispute with what it holds and the
evidence sent, and, while it waits for an answer, the forms to answer it with
evidence or to accept it; and resuming a plan waiting after a lost dispute.

HTTP in/out only: the services are the API's (`dispute_answer`,
`dispute_accept`, `resume.plan_resume`); every query is scoped to the signed-in
merchant, so another merchant's dispute id is a 404. A refusal (the dispute
no longer open, its deadline passed, the processor refusing or failing) is
said on the page, and nothing changes."""

from django.contrib import messages
from django.http import Http404
from django.template.response import TemplateResponse
from django.urls import reverse
from django.views import View

from config.api.errors import DomainError
from config.money import format_kobo
from config.web.pager import page_of, query_without
from config.web.session_auth import see_other
from merchants.audit.actors import actor_from_request
from merchants.dashboard.auth import MerchantLoginRequiredMixin

from ..disputes import resume, services
from ..disputes import selectors as dispute_selectors
from ..disputes.errors import DisputeNotFound
from ..disputes.files import EvidenceFileError, attached_documents, evidence_files
from ..disputes.models import Dispute
from . import selectors as dashboard_selectors
from .forms import DisputeAcceptForm, DisputeAnswerForm, DisputeFilterForm
from .views import plan_of, plan_url

DISPUTES_PAGE_SIZE = 20


def dispute_of(request, dispute_id: str) -> Dispute:
    """The merchant's own dispute, read as the API reads it; any other id is a
    404 page."""
    try:
        return dispute_selectors.dispute_of_merchant(request.merchant, dispute_id)
    except DisputeNotFound:
        raise Http404("No dispute of yours has this id.") from None


def dispute_url(dispute: Dispute) -> str:
    return reverse(
        "installments_dashboard:dispute", kwargs={"dispute_id": dispute.public_id}
    )


class DisputeListView(MerchantLoginRequiredMixin, View):
    permission = "view"

    def get(self, request):
        form = DisputeFilterForm(request.GET)
        form.is_valid()
        filters = form.filters()
        disputes = dashboard_selectors.disputes_listed(request.merchant, **filters)
        return TemplateResponse(
            request,
            "installments/dashboard/disputes.html",
            {
                "form": form,
                "page": page_of(request, disputes, DISPUTES_PAGE_SIZE),
                "pager_query": query_without(request),
                "filtered": any(filters.values()),
            },
        )


def _evidence_lines(dispute: Dispute) -> list[tuple[str, str]]:
    """The text of the answer sent, each field under its form's label."""
    labels = DisputeAnswerForm.base_fields
    return [
        (labels[name].label, dispute.evidence[name])
        for name in (
            "customer_email",
            "customer_name",
            "customer_phone",
            "service_details",
            "delivery_address",
            "delivery_date",
            "message",
        )
        if dispute.evidence.get(name)
    ]


class DisputeDetailView(MerchantLoginRequiredMixin, View):
    permission = "view"

    template_name = "installments/dashboard/dispute.html"

    def get(self, request, dispute_id):
        dispute = dispute_of(request, dispute_id)
        return self.render(request, dispute)

    def render(
        self, request, dispute, *, answer=None, accept=None, refusal="", status=200
    ):
        plan = dispute.plan
        customer = plan.customer
        answer = answer or DisputeAnswerForm(
            initial={
                "customer_email": customer.email,
                "customer_name": f"{customer.first_name} {customer.last_name}".strip(),
                "customer_phone": getattr(customer, "phone", "") or "",
            }
        )
        return TemplateResponse(
            request,
            self.template_name,
            {
                "dispute": dispute,
                "plan": plan,
                "answerable": dispute.status == Dispute.Status.NEEDS_RESPONSE,
                "answer_form": answer,
                "accept_form": accept or DisputeAcceptForm(),
                "evidence_lines": _evidence_lines(dispute),
                "evidence_files": dispute.evidence.get("files", []),
                "refusal": refusal,
            },
            status=status,
        )


def _refused(request, dispute_id, error, **forms):
    """The page again, saying why the service refused (nothing changed)."""
    dispute = dispute_of(request, dispute_id)
    return DisputeDetailView().render(
        request,
        dispute,
        refusal=error.message,
        status=error.http_status,
        **forms,
    )


class DisputeAnswerView(MerchantLoginRequiredMixin, View):
    """POST: the answer with its evidence, then 303 to the dispute."""

    permission = "plans"

    def post(self, request, dispute_id):
        dispute = dispute_of(request, dispute_id)
        form = DisputeAnswerForm(request.POST, request.FILES)
        files = ()
        if form.is_valid():
            try:
                files = evidence_files(request.FILES.getlist("files"))
            except EvidenceFileError as error:
                form.add_error("files", error.messages)
        if not form.is_valid():
            return DisputeDetailView().render(request, dispute, answer=form, status=400)
        try:
            services.dispute_answer(
                dispute=dispute,
                answer=form.answer(files),
                attached=attached_documents(dispute),
                actor=actor_from_request(request),
            )
        except DomainError as error:
            return _refused(request, dispute_id, error, answer=form)
        messages.success(
            request,
            f"Your answer to dispute {dispute.public_id} was sent: the bank now "
            "reviews it. We tell you the outcome by webhook and on this page.",
        )
        return see_other(dispute_url(dispute))


class DisputeAcceptView(MerchantLoginRequiredMixin, View):
    """POST: accept the dispute (confirmed with a tick), then 303 to it."""

    permission = "plans"

    def post(self, request, dispute_id):
        dispute = dispute_of(request, dispute_id)
        form = DisputeAcceptForm(request.POST)
        if not form.is_valid():
            return DisputeDetailView().render(request, dispute, accept=form, status=400)
        try:
            dispute = services.dispute_accept(
                dispute=dispute, actor=actor_from_request(request)
            )
        except DomainError as error:
            return _refused(request, dispute_id, error, accept=form)
        messages.success(
            request,
            f"Dispute {dispute.public_id} accepted: "
            f"{format_kobo(dispute.amount_held, dispute.currency)} goes back to the "
            "customer's bank, and our fee on it is given back to your wallet.",
        )
        return see_other(dispute_url(dispute))


class PlanResumeView(MerchantLoginRequiredMixin, View):
    """POST: continue a plan waiting `disputed`, then 303 to the plan."""

    permission = "plans"

    def post(self, request, plan_id):
        plan = plan_of(request, plan_id)
        try:
            plan = resume.plan_resume(plan=plan, actor=actor_from_request(request))
        except DomainError as error:
            messages.error(request, error.message)
            return see_other(plan_url(plan, "disputes"))
        messages.success(
            request,
            f"Plan {plan.order_reference} resumed: its unpaid installments are "
            "collected on their dates. The charged-back money is not collected "
            "again automatically; your customer was told.",
        )
        return see_other(plan_url(plan))
