"""Reads from the processor: its bank list and the sites of its own pages.

Each takes the processor of the side in hand (`processor_of(merchant)`; the
sandbox for the test side); without one, the live side's."""

from django.core.cache import cache

from .processors import Bank, Processor, get_processor

BANKS_CACHE_SECONDS = 60 * 60


def banks(*, processor: Processor | None = None) -> list[Bank]:
    """The processor's banks for direct debit, cached for an hour (by
    processor: the sandbox's list is not Paystack's)."""
    processor = processor or get_processor()
    key = f"payments:banks:{processor.name}"
    cached = cache.get(key)
    if cached is None:
        cached = [(bank.name, bank.code) for bank in processor.list_banks()]
        cache.set(key, cached, BANKS_CACHE_SECONDS)
    return [Bank(name=name, code=code) for name, code in cached]


def processor_page_origins(*, processor: Processor | None = None) -> tuple[str, ...]:
    """Sites of the processor's own pages that customers are sent to from ours
    (a page with an "Add a card" form allows them as form targets)."""
    return (processor or get_processor()).hosted_page_origins


def bank_by_code(code: str, *, processor: Processor | None = None) -> Bank | None:
    return next(
        (bank for bank in banks(processor=processor) if bank.code == code), None
    )
