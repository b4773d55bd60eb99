"""The files of a merchant's answer to a dispute (DESIGN section 19): at most
5, each a PDF, JPEG or PNG (known by its first bytes, not by its name or the
type the browser claims) of at most 5 MiB; and the documents attached for
the merchant (the plan's agreement record).

`evidence_files` is the one check, the dashboard's form's and the API's
(which answers its error as 422 `evidence_file_invalid`);
`attached_documents` what both add to every answer."""

from django.core.exceptions import ValidationError

from payments.gateway.processors.dispute_types import EvidenceFile

from ..agreements import selectors as agreement_selectors
from .history import history_filename, history_pdf

MAX_FILES = 5
MAX_FILE_SIZE = 5 * 1024 * 1024  # bytes
# The first bytes of each type allowed, and the type and extension it is sent as.
SIGNATURES = (
    (b"%PDF", "application/pdf", "pdf"),
    (b"\xff\xd8\xff", "image/jpeg", "jpg"),
    (b"\x89PNG", "image/png", "png"),
)
FILENAME_MAX_LENGTH = 100


class EvidenceFileError(ValidationError):
    """A file (or the number of files) the answer cannot carry; its message
    says which and why."""


def content_type_of(content: bytes) -> str | None:
    for magic, content_type, _ in SIGNATURES:
        if content.startswith(magic):
            return content_type
    return None


def _safe_name(name: str, content_type: str, number: int) -> str:
    """The file's own name without a path or a control character, kept short;
    `evidence-<n>.<ext>` when nothing usable is left."""
    base = (name or "").replace("\\", "/").rsplit("/", 1)[-1]
    base = "".join(ch for ch in base if ch.isprintable()).strip()
    if not base:
        extension = next(ext for _, kind, ext in SIGNATURES if kind == content_type)
        base = f"evidence-{number}.{extension}"
    return base[-FILENAME_MAX_LENGTH:]


def evidence_files(uploaded) -> tuple[EvidenceFile, ...]:
    """`uploaded` (Django `UploadedFile`s, or anything with `name`, `size` and
    `read()`) as the answer's files, in their order; `EvidenceFileError` with
    a readable message for too many, too large, empty or of another type."""
    uploaded = [item for item in uploaded if item is not None]
    if len(uploaded) > MAX_FILES:
        raise EvidenceFileError(
            f"Attach at most {MAX_FILES} files; you chose {len(uploaded)}.",
            code="too_many_files",
        )
    files = []
    for number, item in enumerate(uploaded, start=1):
        shown = _safe_name(getattr(item, "name", ""), "application/pdf", number)
        size = getattr(item, "size", None)
        if size is not None and size > MAX_FILE_SIZE:
            raise EvidenceFileError(
                f'"{shown}" is larger than 5 MiB: attach a smaller file.',
                code="file_too_large",
            )
        content = item.read(MAX_FILE_SIZE + 1)
        if len(content) > MAX_FILE_SIZE:
            raise EvidenceFileError(
                f'"{shown}" is larger than 5 MiB: attach a smaller file.',
                code="file_too_large",
            )
        if not content:
            raise EvidenceFileError(f'"{shown}" is empty.', code="file_empty")
        content_type = content_type_of(content)
        if content_type is None:
            raise EvidenceFileError(
                f'"{shown}" is not a PDF, JPEG or PNG file.', code="file_type"
            )
        files.append(
            EvidenceFile(
                filename=_safe_name(getattr(item, "name", ""), content_type, number),
                content_type=content_type,
                content=content,
            )
        )
    return tuple(files)


def attached_documents(dispute) -> tuple[EvidenceFile, ...]:
    """What every answer carries besides the merchant's files: the plan's
    agreement record (DESIGN section 18, the PDF stored when the customer
    agreed; none for a plan made before agreements were kept) and its payment
    history, made now."""
    plan = dispute.plan
    attached = []
    if agreement_selectors.has_agreement(plan):
        agreement = agreement_selectors.agreement_of(plan)
        attached.append(
            EvidenceFile(
                filename=agreement_selectors.pdf_filename(agreement),
                content_type="application/pdf",
                content=bytes(agreement.document),
            )
        )
    attached.append(
        EvidenceFile(
            filename=history_filename(plan),
            content_type="application/pdf",
            content=history_pdf(plan, disputed_reference=dispute.collection_reference),
        )
    )
    return tuple(attached)
