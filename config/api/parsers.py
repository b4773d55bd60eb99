"""The JSON parser for every API view, and the multipart parser of the views
that take uploads."""

from django.core.exceptions import (
    RequestDataTooBig,
    TooManyFieldsSent,
    TooManyFilesSent,
)
from rest_framework.exceptions import APIException, ParseError
from rest_framework.parsers import JSONParser, MultiPartParser


class SafeJSONParser(JSONParser):
    """JSONParser that answers 400 instead of 500 for pathologically nested bodies
    (Python's json raises RecursionError past a few hundred levels)."""

    def parse(self, stream, media_type=None, parser_context=None):
        try:
            return super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError(
                "JSON parse error - the body is nested too deeply."
            ) from None


class UploadTooLarge(APIException):
    status_code = 413
    default_detail = "Request body too large: its text fields are limited to 1 MiB."
    default_code = "request_too_large"


class SafeMultiPartParser(MultiPartParser):
    """MultiPartParser whose refusals of Django's upload limits are answers (413
    for text fields over DATA_UPLOAD_MAX_MEMORY_SIZE, 400 for too many fields
    or files), not errors escaping the view as a 500."""

    def parse(self, stream, media_type=None, parser_context=None):
        try:
            return super().parse(stream, media_type, parser_context)
        except RequestDataTooBig:
            raise UploadTooLarge() from None
        except TooManyFilesSent:
            raise ParseError("Multipart form parse error - too many files.") from None
        except TooManyFieldsSent:
            raise ParseError("Multipart form parse error - too many fields.") from None
