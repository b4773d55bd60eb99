"""The error messages a rendered form shows under its fields."""

import html
import re


def field_errors(page: str) -> dict[str, list[str]]:
    """The messages shown under each field of a rendered form."""
    errors = {}
    for chunk in page.split('data-field="')[1:]:
        name = chunk.split('"', 1)[0]
        messages = re.findall(r'<p class="field-error"[^>]*>(.*?)</p>', chunk, re.S)
        if messages:
            errors[name] = [html.unescape(message) for message in messages]
    return errors
