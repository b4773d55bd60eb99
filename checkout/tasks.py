from . import services


def purge_expired_idempotency_records() -> int:
    return services.idempotency_records_purge()
