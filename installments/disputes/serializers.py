"""HTTP in/out for disputes (DESIGN section 19): the list's filters, the
merchant's evidence (text fields from the processor's evidence list, and up to
5 files checked by their content), acceptance, and the dispute's
representation."""

from rest_framework import serializers

from config.api.formats import iso_utc
from config.api.serializers import (
    IsoDateField,
    StrictCharField,
    StrictEmailField,
    StrictSerializer,
)
from config.text import no_control_characters
from payments.gateway.processors.dispute_types import EvidenceFile

from . import files
from .errors import EvidenceFileInvalid
from .models import Dispute

SERVICE_DETAILS_MAX_LENGTH = 2000
DELIVERY_ADDRESS_MAX_LENGTH = 500
MESSAGE_MAX_LENGTH = 1000
NAME_MAX_LENGTH = 200
PHONE_MAX_LENGTH = 32
EMAIL_MAX_LENGTH = 254

# A plan's public id, as the path parameters document it (`\Z`: no newline).
PLAN_ID_PATTERN = r"^plan_[0-9A-Za-z]{1,64}\Z"


class DisputeListQuery(serializers.Serializer):
    """`?status=&payment_plan_id=` (`limit`/`offset` are the paginator's)."""

    status = serializers.ChoiceField(choices=Dispute.Status.choices, required=False)
    payment_plan_id = serializers.RegexField(
        PLAN_ID_PATTERN,
        trim_whitespace=False,
        required=False,
        error_messages={"invalid": "Enter a plan id: plan_ and letters or digits."},
    )


def _text(max_length: int, **options):
    return StrictCharField(
        max_length=max_length, validators=[no_control_characters], **options
    )


class DisputeEvidenceInput(StrictSerializer):
    """The evidence as JSON (no files)."""

    customer_email = StrictEmailField(
        max_length=EMAIL_MAX_LENGTH,
        required=False,
        validators=[no_control_characters],
    )
    customer_name = _text(NAME_MAX_LENGTH, required=False)
    customer_phone = _text(PHONE_MAX_LENGTH, required=False)
    service_details = _text(SERVICE_DETAILS_MAX_LENGTH)
    delivery_address = _text(DELIVERY_ADDRESS_MAX_LENGTH, required=False)
    delivery_date = IsoDateField(required=False)
    message = _text(MESSAGE_MAX_LENGTH, required=False)


class DisputeEvidenceUpload(DisputeEvidenceInput):
    """The evidence as multipart/form-data: the text fields, and `files`
    (checked by `evidence_files`, so a refused file is a 422 naming it)."""

    files = serializers.ListField(
        child=serializers.FileField(allow_empty_file=True, use_url=False),
        required=False,
    )


class DisputeAcceptInput(StrictSerializer):
    message = _text(MESSAGE_MAX_LENGTH, required=False)


def evidence_files(uploads) -> tuple[EvidenceFile, ...]:
    """The uploaded files as the processor takes them (files.evidence_files,
    the dashboard's check too); 422 `evidence_file_invalid` naming the first
    one refused."""
    try:
        return files.evidence_files(list(uploads or ()))
    except files.EvidenceFileError as error:
        raise EvidenceFileInvalid(
            error.messages[0]
            + (
                " The agreement and the payment history are attached for you."
                if error.code == "too_many_files"
                else ""
            )
        ) from error


def dispute_output(dispute: Dispute) -> dict:
    """The dispute's representation (snake_case, times in UTC)."""
    return {
        "id": dispute.public_id,
        "payment_plan_id": dispute.plan.public_id,
        "livemode": dispute.merchant.livemode,
        "collection_reference": dispute.collection_reference,
        "installment_id": (
            dispute.installment.public_id if dispute.installment_id else None
        ),
        "amount": dispute.amount,
        "amount_held": dispute.amount_held,
        "currency": dispute.currency,
        "reason": dispute.reason,
        "status": dispute.status,
        "due_at": iso_utc(dispute.due_at),
        "evidence": dispute.evidence or None,
        "created_at": iso_utc(dispute.created_at),
        "responded_at": iso_utc(dispute.responded_at),
        "resolved_at": iso_utc(dispute.resolved_at),
    }
