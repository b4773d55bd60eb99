"""Glue between the pages' forms and the API's input serializers: a page validates
with the serializer of the same thing, so a page and the API accept and refuse
exactly the same values with the same messages."""


def _messages(detail) -> list[str]:
    """DRF error details (lists, or dicts for list items) as flat strings."""
    if isinstance(detail, dict):
        return [text for value in detail.values() for text in _messages(value)]
    if isinstance(detail, list):
        return [text for value in detail for text in _messages(value)]
    return [str(detail)]


def validate_with_serializer(form, serializer_class, data: dict, field_for=None):
    """Run `serializer_class` on `data`; put its errors next to the form's fields.

    Returns the validated data, or None when there were errors. `field_for` maps a
    serializer field to the form field that shows its errors.
    """
    serializer = serializer_class(data=data)
    if serializer.is_valid():
        return dict(serializer.validated_data)
    for name, detail in serializer.errors.items():
        target = (field_for or {}).get(name, name)
        for message in _messages(detail):
            form.add_error(target if target in form.fields else None, message)
    return None
