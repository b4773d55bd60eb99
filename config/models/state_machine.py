"""The one state machine under every model with a status: a status changes only
through `transition_to()` (one loaded row), `bulk_transition()` (many loaded
rows) or `transition_where()` (a guarded set-based UPDATE), each of which
refuses a move the transitions map does not allow, stamps the time and, where
the model keeps one, appends a status-change row (the history)."""

from datetime import datetime
from typing import ClassVar

from django.db import models
from django.utils import timezone

from config.db.rows import bulk_insert

# Refreshed on every move when the model has them.
CHANGED_AT = "status_changed_at"
UPDATED_AT = "updated_at"


class IllegalTransition(ValueError):
    """A status change the state machine does not allow: a bug, never user input."""


class StateMachine(models.Model):
    """`status`, changed only by the methods below.

    Subclasses define `Status`, `TRANSITIONS` (status -> statuses it may move to),
    `STAMPS` (status -> the timestamp field set when entering it) and, for a
    history, `history_row(old, new, at)`. A `status_changed_at` or `updated_at`
    field, when the model has one, is set on every move. `INITIAL` names the
    statuses a row is created in besides the field's default: a record written
    once its outcome is known (a processor's charge) starts in that outcome.
    """

    TRANSITIONS: ClassVar[dict[str, frozenset[str]]] = {}
    STAMPS: ClassVar[dict[str, str]] = {}
    INITIAL: ClassVar[frozenset[str]] = frozenset()

    class Meta:
        abstract = True

    def can_transition_to(self, new: str) -> bool:
        return new in self.TRANSITIONS.get(self.status, frozenset())

    @classmethod
    def sources_of(cls, new: str) -> frozenset[str]:
        """The statuses that may move to `new`."""
        return frozenset(old for old, to in cls.TRANSITIONS.items() if new in to)

    @classmethod
    def _timed_fields(cls) -> set[str]:
        names = {field.name for field in cls._meta.concrete_fields}
        return {CHANGED_AT, UPDATED_AT} & names

    @classmethod
    def _written(cls, new: str, at: datetime) -> dict:
        """The columns a move to `new` at `at` writes besides the caller's."""
        values = {"status": new, **dict.fromkeys(cls._timed_fields(), at)}
        stamp = cls.STAMPS.get(new)
        if stamp:
            values[stamp] = at
        return values

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
        written = self._written(new, at)
        for name, value in written.items():
            setattr(self, name, value)
        self.save(update_fields=sorted({*written, *update_fields}))
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
        written = cls._written(new, at)
        history = []
        for row in rows:
            old = row.status
            for name, value in written.items():
                setattr(row, name, value)
            entry = row.history_row(old, new, at)
            if entry is not None:
                history.append(entry)
        cls.objects.filter(pk__in=[row.pk for row in rows]).update(
            **{**(same or {}), **written}
        )
        bulk_insert(history)

    @classmethod
    def transition_where(
        cls, rows: models.QuerySet, new: str, *, at: datetime | None = None, same=None
    ) -> int:
        """Move the rows of `rows` to `new` in one guarded UPDATE, without
        loading them: only rows whose status may move to `new` change, so a
        stale writer changes nothing. Returns how many moved.

        For models without a history (a history row needs the loaded row:
        `bulk_transition()`)."""
        if cls.history_row is not StateMachine.history_row:
            raise TypeError(f"{cls.__name__} keeps a history: use bulk_transition()")
        written = cls._written(new, at or timezone.now())
        return rows.filter(status__in=cls.sources_of(new)).update(
            **{**(same or {}), **written}
        )
