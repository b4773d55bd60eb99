from django.db import models


class RateCounter(models.Model):
    """A fixed-window counter, bumped by one atomic upsert (see ratelimit.py)."""

    key = models.CharField(max_length=200, primary_key=True)
    count = models.PositiveIntegerField(default=0)
    expires_at = models.DateTimeField(db_index=True)

    def __str__(self):
        return f"{self.key}={self.count}"


class UsedRefreshToken(models.Model):
    """Refresh tokens already exchanged: rotation makes each one single-use.

    The primary key on `jti` is what makes two concurrent refreshes of one token
    yield one new pair, not two.
    """

    jti = models.CharField(max_length=64, primary_key=True)
    expires_at = models.DateTimeField(db_index=True)

    def __str__(self):
        return self.jti
