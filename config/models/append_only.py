"""The base of append-only rows (ledger lines, histories): a row is written once;
a correction is a new row, never an update or a delete.

One path removes rows: `purge()` on a queryset, which the records retention
purge (installments/retention/) calls on rows past the financial-records
period. Every other delete, of one row or of a queryset, is refused."""

from django.db import models


def _refuse(model) -> ValueError:
    return ValueError(f"{model.__name__} rows are append-only")


class AppendOnlyQuerySet(models.QuerySet):
    def delete(self):
        raise _refuse(self.model)

    delete.alters_data = True
    delete.queryset_only = True

    def purge(self) -> int:
        """Delete these rows for the records retention purge, and nothing else
        (DESIGN 18: kept for the financial-records period, then removed).
        Returns how many rows of this model went."""
        deleted, per_model = super().delete()
        return per_model.get(self.model._meta.label, 0)

    purge.alters_data = True
    purge.queryset_only = True


class AppendOnly(models.Model):
    objects = AppendOnlyQuerySet.as_manager()

    class Meta:
        abstract = True

    def save(self, *args, **kwargs):
        if self.pk is not None and not self._state.adding:
            raise _refuse(type(self))
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise _refuse(type(self))
