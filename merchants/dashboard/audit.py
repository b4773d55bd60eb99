"""The dashboard's audit log page, `/dashboard/audit-log/`, and its CSV download
with the page's filters, over merchants/audit/."""

from datetime import datetime, time, timedelta

from django import forms
from django.template.response import TemplateResponse
from django.views import View

from config.exports import csv_response
from config.text import no_control_characters
from config.web.forms import FilterForm
from config.web.pager import page_of, query_without

from ..audit import selectors
from ..audit.actions import ACTIONS
from ..audit.exports import AUDIT_LOG, audit_csv_row
from ..audit.serializers import ACTOR_MAX_LENGTH, LAGOS
from .auth import MerchantLoginRequiredMixin

PAGE_SIZE = 25


class AuditLogFilterForm(FilterForm):
    action = forms.ChoiceField(
        label="Action",
        required=False,
        choices=[("", "All actions"), *((slug, slug) for slug in sorted(ACTIONS))],
    )
    actor = forms.CharField(
        label="Who (e-mail, key prefix or id)",
        required=False,
        max_length=ACTOR_MAX_LENGTH,
        validators=[no_control_characters],
    )
    since = forms.DateField(
        label="From", required=False, widget=forms.DateInput(attrs={"type": "date"})
    )
    until = forms.DateField(
        label="To", required=False, widget=forms.DateInput(attrs={"type": "date"})
    )

    def filters(self) -> dict:
        """The selector's filters: the dates as Lagos days, `until` included."""
        values = super().filters()
        if values["since"]:
            values["since"] = datetime.combine(values["since"], time(), tzinfo=LAGOS)
        if values["until"]:
            day = values["until"] + timedelta(days=1)
            values["until"] = datetime.combine(day, time(), tzinfo=LAGOS)
        return values


def _entries(request):
    form = AuditLogFilterForm(request.GET)
    form.is_valid()
    return form, selectors.audit_entries(request.merchant, **form.filters())


class AuditLogView(MerchantLoginRequiredMixin, View):
    permission = "audit_log"

    def get(self, request):
        form, entries = _entries(request)
        return TemplateResponse(
            request,
            "merchants/dashboard/audit_log.html",
            {
                "form": form,
                "page": page_of(request, entries, PAGE_SIZE),
                "pager_query": query_without(request),
                "filtered": any(form.filters().values()),
            },
        )


class AuditLogCsv(MerchantLoginRequiredMixin, View):
    """Every entry the page's filters match, as CSV (DESIGN section 16)."""

    permission = "audit_log"

    def get(self, request):
        _, entries = _entries(request)
        return csv_response(
            AUDIT_LOG,
            entries,
            merchant_id=request.merchant.public_id,
            output=audit_csv_row,
        )
