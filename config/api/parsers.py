"""The JSON parser for every API view."""

from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser


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
