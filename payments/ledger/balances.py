"""Kept balances: what an account holds, at a cost that does not grow with its
history (docs/wallet.md, "Kept balances"; docs/decisions.md, issue 19).

A recurring checkpoint (`balances_checkpoint`, the `payments-ledger-checkpoint`
schedule) adds the lines posted since the last one into `LedgerBalance`, one row
per (account, merchant of the transaction, kind), set-based. A balance is then
its rows plus the lines since the newest checkpoint: a range of the lines'
primary key, a few minutes of postings at most. Postings never touch these
rows, so the engine's batches write exactly what they wrote before.

Line ids come from a sequence, and ids are handed out before their transaction
commits: a line with a lower id can commit after one with a higher id. A
checkpoint therefore covers lines only up to a mark below which nothing can
still be in flight: it takes a SHARE lock on the journal's transactions table,
which waits for every transaction that inserted a journal transaction and has
not finished (each posting inserts its journal transaction before it takes its
lines' ids), reads the highest line id, and lets go at once. It waits at most
`LOCK_WAIT`; when it cannot have the lock it covers nothing this time (a read
stays exact: it adds more lines since).
"""

from dataclasses import dataclass

from django.db import OperationalError, connection, transaction
from django.utils import timezone

from .models import LedgerBalance, LedgerLine, LedgerTransaction

LOCK_WAIT = "200ms"
_BALANCES = LedgerBalance._meta.db_table
_LINES = LedgerLine._meta.db_table
_TRANSACTIONS = LedgerTransaction._meta.db_table
# The newest checkpoint's mark: every kept row is exact through it (a row not
# changed by the last checkpoints had no lines in theirs).
_MARK = f"(SELECT COALESCE(MAX(through_line_id), 0) FROM {_BALANCES})"  # noqa: S608
_MERCHANT = "COALESCE(t.merchant_id, 0)"


@dataclass(frozen=True)
class Checkpoint:
    previous: int  # the mark before
    through: int  # the mark now: every line up to it is counted
    keys: int  # kept rows written


def _safe_mark() -> int | None:
    """The highest line id below which every line is committed (or never will
    be), or None when postings in flight kept the lock from us for LOCK_WAIT."""
    with transaction.atomic(), connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(f"SET LOCAL lock_timeout = '{LOCK_WAIT}'")
            try:
                with transaction.atomic():
                    cursor.execute(f"LOCK TABLE {_TRANSACTIONS} IN SHARE MODE")
            except OperationalError:
                return None
        # SQLite has one writer at a time: an uncommitted line's id is above
        # every committed one.
        cursor.execute(f"SELECT COALESCE(MAX(id), 0) FROM {_LINES}")  # noqa: S608
        return cursor.fetchone()[0]


_UPSERT = f"""
INSERT INTO {_BALANCES}
    (account, merchant_pk, kind, balance, line_count, through_line_id, updated_at)
SELECT l.account, {_MERCHANT}, t.kind, SUM(l.amount), COUNT(*), %s, %s
FROM {_LINES} l JOIN {_TRANSACTIONS} t ON t.id = l.transaction_id
WHERE l.id > %s AND l.id <= %s
GROUP BY l.account, {_MERCHANT}, t.kind
ON CONFLICT (account, merchant_pk, kind) DO UPDATE SET
    balance = {_BALANCES}.balance + excluded.balance,
    line_count = {_BALANCES}.line_count + excluded.line_count,
    through_line_id = excluded.through_line_id,
    updated_at = excluded.updated_at
"""  # noqa: S608


def balances_checkpoint() -> Checkpoint | None:
    """Count the lines posted since the last checkpoint into the kept rows (one
    statement). None when it could not take a safe mark now (the next run
    will). Two runs at once take turns on the kept rows' table."""
    through = _safe_mark()
    if through is None:
        return None
    with transaction.atomic(), connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(f"LOCK TABLE {_BALANCES} IN SHARE ROW EXCLUSIVE MODE")
        cursor.execute(f"SELECT {_MARK}")
        (previous,) = cursor.fetchone()
        if through <= previous:
            return Checkpoint(previous, previous, 0)
        cursor.execute(_UPSERT, [through, timezone.now(), previous, through])
        return Checkpoint(previous, through, cursor.rowcount)


def _floor() -> int:
    """The newest checkpoint's mark as a number, for the planner: a read's lines
    since are `id > floor AND id > (the mark)`, where the mark read in the same
    statement keeps it one snapshot (marks only grow, so both hold) and the
    number lets PostgreSQL see a short range of the lines' ids, where the
    subquery alone would be guessed a third of the table."""
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {_MARK}")
        return cursor.fetchone()[0]


@dataclass(frozen=True)
class Scope:
    """The lines of `account`, of the transactions of merchant `merchant_pk`
    (None: of every transaction)."""

    account: str
    merchant_pk: int | None = None

    def sql(self, alias: str, merchant: str) -> tuple[str, list]:
        if self.merchant_pk is None:
            return f"{alias}.account = %s", [self.account]
        return (
            f"({alias}.account = %s AND {merchant} = %s)",
            [self.account, self.merchant_pk],
        )


@dataclass(frozen=True)
class Total:
    amount: int = 0  # debit-positive sum of the lines
    lines: int = 0


def totals(scopes: list[Scope]) -> dict[tuple[str, str], Total]:
    """{(account, kind): Total} of the scopes' lines: the kept rows plus the
    lines since the newest checkpoint, in one statement (one snapshot)."""
    kept = [scope.sql("b", "b.merchant_pk") for scope in scopes]
    since = [scope.sql("l", _MERCHANT) for scope in scopes]
    sql = f"""
    SELECT s.account, s.kind, SUM(s.amount), SUM(s.n) FROM (
        SELECT b.account, b.kind, b.balance AS amount, b.line_count AS n
        FROM {_BALANCES} b WHERE {" OR ".join(part for part, _ in kept)}
        UNION ALL
        SELECT l.account, t.kind, l.amount, 1
        FROM {_LINES} l JOIN {_TRANSACTIONS} t ON t.id = l.transaction_id
        WHERE l.id > %s AND l.id > {_MARK}
            AND ({" OR ".join(part for part, _ in since)})
    ) s GROUP BY s.account, s.kind
    """  # noqa: S608
    params = [p for _, ps in kept for p in ps] + [_floor()]
    params += [p for _, ps in since for p in ps]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return {
            (account, kind): Total(int(amount), int(count))
            for account, kind, amount, count in cursor.fetchall()
        }


def balances_by_account(prefix: str) -> dict[str, int]:
    """{account: debit-positive balance} of every account named `prefix...`
    (the merchants' wallets), kept rows plus lines since, in one statement."""
    pattern = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    sql = f"""
    SELECT s.account, SUM(s.amount) FROM (
        SELECT account, balance AS amount FROM {_BALANCES}
        WHERE account LIKE %s ESCAPE '\\'
        UNION ALL
        SELECT account, amount FROM {_LINES}
        WHERE id > %s AND id > {_MARK} AND account LIKE %s ESCAPE '\\'
    ) s GROUP BY s.account
    """  # noqa: S608
    floor = _floor()
    with connection.cursor() as cursor:
        cursor.execute(sql, [pattern + "%", floor, pattern + "%"])
        return {account: int(amount) for account, amount in cursor.fetchall()}


_DIFFERENCES = f"""
SELECT account, merchant_pk, kind, SUM(kept), SUM(kept_n), SUM(summed), SUM(summed_n)
FROM (
    SELECT account, merchant_pk, kind, balance AS kept, line_count AS kept_n,
        0 AS summed, 0 AS summed_n
    FROM {_BALANCES}
    UNION ALL
    SELECT l.account, {_MERCHANT}, t.kind, 0, 0, l.amount, 1
    FROM {_LINES} l JOIN {_TRANSACTIONS} t ON t.id = l.transaction_id
    WHERE l.id <= {_MARK}
) s
GROUP BY account, merchant_pk, kind
HAVING SUM(kept) <> SUM(summed) OR SUM(kept_n) <> SUM(summed_n)
ORDER BY account, merchant_pk, kind
"""  # noqa: S608


def kept_differences() -> list[tuple]:
    """Each kept row (or missing one) whose balance or line count is not that of
    its lines through the newest checkpoint, in one statement: (account,
    merchant_pk, kind, kept, kept lines, summed, summed lines)."""
    with connection.cursor() as cursor:
        cursor.execute(_DIFFERENCES)
        return cursor.fetchall()
