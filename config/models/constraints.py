"""Database rules more than one model keeps."""

from django.db import models


def amount_positive(name: str) -> models.CheckConstraint:
    """Money is a positive number of kobo: a row of zero or less cannot exist."""
    return models.CheckConstraint(condition=models.Q(amount__gt=0), name=name)
