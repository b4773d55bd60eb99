"""django-q2 entry points of payment methods: thin wrappers over services."""

from . import services


def poll_revoked_mandates() -> int:
    return services.revoked_mandates_poll()
