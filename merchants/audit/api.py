"""`GET /api/v1/audit-log`: the merchant's audit log, newest first."""

from config.api.csv import CsvListApi
from config.api.permissions import accepts
from config.exports import csv_or_page

from ..authentication import resolve_merchant
from ..team.permissions import role_needs
from . import selectors
from .exports import AUDIT_LOG, audit_csv_row
from .serializers import AuditListQuery, audit_entry_output


class AuditLogApi(CsvListApi):
    permission_classes = [accepts("api_key", "merchant_jwt"), role_needs("audit_log")]

    def get(self, request):
        merchant = resolve_merchant(request)
        # A plain dict: given a QueryDict, DRF reads `?action=` (empty) as absent.
        query = AuditListQuery(data=request.query_params.dict())
        query.is_valid(raise_exception=True)
        rows = selectors.audit_entries(merchant, **query.validated_data)
        return csv_or_page(
            request,
            rows,
            export=AUDIT_LOG,
            merchant_id=merchant.public_id,
            output=audit_entry_output,
            csv_output=audit_csv_row,
        )
