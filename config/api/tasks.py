from django.utils import timezone

from .models import UsedRefreshToken
from .ratelimit import purge_expired


def purge_expired_counters() -> int:
    """Drop ended rate-limit windows and refresh-token records past their expiry."""
    deleted = purge_expired()
    tokens, _ = UsedRefreshToken.objects.filter(expires_at__lt=timezone.now()).delete()
    return deleted + tokens
