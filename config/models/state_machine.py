"""The state machine under plans, installments and deposit attempts: statuses
change only through `transition_to()` (or `bulk_transition()` for many rows),
which refuses a move the transitions map does not allow, stamps the time and
appends a status-change row (the history)."""

from datetime import datetime
from typing import ClassVar

from django.db import models
from django.utils import timezone

from config.db.rows import bulk_insert


class IllegalTransition(ValueError):
    """A status change the state machine does not allow: a bug, never user input."""


class StateMachine(models.Model):
    """`status` + `status_changed_at`, changed only by `transition_to()`.

    Subclasses define `Status`, `TRANSITIONS` (status -> statuses it may move to),
    `STAMPS` (status -> the timestamp field set when entering it) and, for a
    history, `history_row(old, new, at)`.
    """

    TRANSITIONS: ClassVar[dict[str, frozenset[str]]] = {}
    STAMPS: ClassVar[dict[str, str]] = {}

    status_changed_at = models.DateTimeField(default=timezone.now)

    class Meta:
        abstract = True

    def can_transition_to(self, new: str) -> bool:
        return new in self.TRANSITIONS.get(self.status, frozenset())

    def transition_to(
        self, new: str, *, at: datetime | None = None, update_fields=()
    ) -> None:
        """Move to `new` and save the status, its stamps and `update_fields`."""
        if not self.can_transition_to(new):
            raise IllegalTransition(
                f"{type(self).__name__} {self.pk}: {self.status} -> {new} is not "
                "allowed"
            )
        at = at or timezone.now()
        old = self.status
        self.status = new
        self.status_changed_at = at
        fields = {"status", "status_changed_at", *update_fields}
        stamp = self.STAMPS.get(new)
        if stamp:
            setattr(self, stamp, at)
            fields.add(stamp)
        if any(field.name == "updated_at" for field in self._meta.fields):
            fields.add("updated_at")
        self.save(update_fields=sorted(fields))
        row = self.history_row(old, new, at)
        if row is not None:
            row.save()

    def history_row(self, old: str, new: str, at: datetime) -> models.Model | None:
        """The unsaved status-change row, or None where the stamps suffice."""
        return None

    @classmethod
    def bulk_transition(
        cls, rows: list, new: str, *, at: datetime | None = None, same=None
    ) -> None:
        """`transition_to()` for many rows (loaded and locked by the caller) in
        two statements: every move the map allows, or none at all.

        `same` (column -> value or expression) is written with the status and
        its stamps by one UPDATE; the caller groups rows that differ."""
        if not rows:
            return
        illegal = [row for row in rows if not row.can_transition_to(new)]
        if illegal:
            row = illegal[0]
            raise IllegalTransition(
                f"{cls.__name__} {row.pk}: {row.status} -> {new} is not allowed"
            )
        at = at or timezone.now()
        history = []
        for row in rows:
            old, row.status, row.status_changed_at = row.status, new, at
            entry = row.history_row(old, new, at)
            if entry is not None:
                history.append(entry)
        same = {**(same or {}), "status": new, "status_changed_at": at}
        stamp = cls.STAMPS.get(new)
        if stamp:
            same[stamp] = at
            for row in rows:
                setattr(row, stamp, at)
        if any(field.name == "updated_at" for field in cls._meta.fields):
            same["updated_at"] = at
        cls.objects.filter(pk__in=[row.pk for row in rows]).update(**same)
        bulk_insert(history)
