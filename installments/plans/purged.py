"""What the records retention purge removed (installments/retention/): the
public id of each plan, installment and refund it deleted, so that the ledger
checks tell a collection or refund posting whose records were purged (its rows
kept, DESIGN 18: amounts and references only) from one that matches nothing.
A public id is a random token: it says nothing about the customer."""

from collections.abc import Iterable

from django.db import models


class PurgedRecord(models.Model):
    public_id = models.CharField(max_length=40, unique=True)
    purged_at = models.DateTimeField()

    def __str__(self):
        return f"{self.public_id} purged {self.purged_at:%Y-%m-%d}"


def named_id(reference: str) -> str:
    """The public id a reference or a message subject starts with: `inst_X`,
    `inst_X_a2p`, `plan_X_d1` and `rf_X_2` name `inst_X`, `plan_X`, `rf_X`."""
    return "_".join(reference.split("_", 2)[:2])


def purged(references: Iterable[str]) -> set[str]:
    """Those of `references` that name a purged record."""
    references = list(references)
    ids = PurgedRecord.objects.filter(
        public_id__in={named_id(reference) for reference in references}
    ).values_list("public_id", flat=True)
    found = set(ids)
    return {reference for reference in references if named_id(reference) in found}
