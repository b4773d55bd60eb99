"""Staff see agreement records (never change them) and download their PDF as
it was stored."""

from django.contrib import admin
from django.http import Http404
from django.urls import path, reverse
from django.utils.html import format_html

from config.admin import ReadOnlyAdminMixin

from . import selectors
from .models import Agreement


@admin.register(Agreement)
class AgreementAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = ("public_id", "plan", "merchant", "version", "accepted_at")
    list_select_related = ("plan", "merchant")
    search_fields = ("public_id", "plan__public_id", "plan__order_reference")
    fields = (
        "public_id",
        "plan",
        "customer",
        "merchant",
        "version",
        "accepted_at",
        "ip",
        "user_agent",
        "key_facts",
        "document_sha256",
        "pdf",
        "created_at",
    )
    readonly_fields = fields

    def get_queryset(self, request):
        return super().get_queryset(request).defer("document")

    @admin.display(description="Document")
    def pdf(self, obj):
        url = reverse("admin:installments_agreement_pdf", args=[obj.pk])
        return format_html('<a href="{}">Download the PDF</a>', url)

    def get_urls(self):
        return [
            path(
                "<int:pk>/pdf/",
                self.admin_site.admin_view(self.pdf_view),
                name="installments_agreement_pdf",
            ),
            *super().get_urls(),
        ]

    def pdf_view(self, request, pk):
        agreement = self.get_object(request, str(pk))
        if agreement is None or not self.has_view_permission(request, agreement):
            raise Http404("No agreement has this id.")
        return selectors.pdf_response(Agreement.objects.get(pk=agreement.pk))
