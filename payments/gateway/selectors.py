"""Reads from the processor: its bank list and the sites of its own pages."""

from django.core.cache import cache

from .processors import Bank, get_processor, processor_name

BANKS_CACHE_SECONDS = 60 * 60


def banks() -> list[Bank]:
    """The processor's banks for direct debit, cached for an hour."""
    key = f"payments:banks:{processor_name()}"
    cached = cache.get(key)
    if cached is None:
        cached = [(bank.name, bank.code) for bank in get_processor().list_banks()]
        cache.set(key, cached, BANKS_CACHE_SECONDS)
    return [Bank(name=name, code=code) for name, code in cached]


def processor_page_origins() -> tuple[str, ...]:
    """Sites of the processor's own pages that customers are sent to from ours
    (a page with an "Add a card" form allows them as form targets)."""
    return get_processor().hosted_page_origins


def bank_by_code(code: str) -> Bank | None:
    return next((bank for bank in banks() if bank.code == code), None)
