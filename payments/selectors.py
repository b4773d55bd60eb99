from dataclasses import dataclass
from datetime import datetime

from django.core.cache import cache
from django.db.models import Count, Q, QuerySet, Sum

from config.api.ids import looks_like_public_id

from .errors import CustomerNotFound, PaymentMethodNotFound
from .models import Customer, LedgerLine, LedgerTransaction, PaymentMethod
from .models.ledger import PAYOUTS_IN_TRANSIT, PROCESSOR_CLEARING, wallet_account
from .processors import Bank, get_processor, processor_name

BANKS_CACHE_SECONDS = 60 * 60


def customer_by_public_id(public_id: str) -> Customer | None:
    if not looks_like_public_id(public_id, "cus"):
        return None
    return Customer.objects.filter(public_id=public_id).first()


def customer_by_email(email: str) -> Customer | None:
    return Customer.objects.filter(email__iexact=email.strip()).first()


def own_customer(principal: Customer, customer_id: str) -> Customer:
    """The signed-in customer, when `customer_id` names them; anyone else's id
    (or an unknown one) is a 404, so ids of other customers cannot be probed."""
    if customer_id != principal.public_id:
        raise CustomerNotFound()
    return principal


def payment_methods_listed(customer: Customer) -> QuerySet[PaymentMethod]:
    """Active methods (default first, then newest) and revoked ones as history;
    deleted methods are gone from the listing."""
    return customer.payment_methods.exclude(
        status=PaymentMethod.Status.DELETED
    ).order_by("-is_default", "status", "-created_at", "-id")


def payment_methods_chargeable(customer: Customer) -> list[PaymentMethod]:
    """What an auto-debit may charge, in order: the default, then newest first."""
    return list(
        customer.payment_methods.filter(status=PaymentMethod.Status.ACTIVE).order_by(
            "-is_default", "-created_at", "-id"
        )
    )


def payment_methods_chargeable_by_customer(
    customer_pks,
) -> dict[int, list[PaymentMethod]]:
    """`payment_methods_chargeable` for many customers in one query (their
    `customer` loaded too), keyed by customer pk; a customer without active
    methods is absent."""
    methods: dict[int, list[PaymentMethod]] = {}
    for method in (
        PaymentMethod.objects.filter(
            customer_id__in=customer_pks, status=PaymentMethod.Status.ACTIVE
        )
        .select_related("customer")
        .order_by("customer_id", "-is_default", "-created_at", "-id")
    ):
        methods.setdefault(method.customer_id, []).append(method)
    return methods


def own_payment_method(customer: Customer, public_id: str) -> PaymentMethod:
    if not looks_like_public_id(public_id, "pm"):
        raise PaymentMethodNotFound()
    method = (
        customer.payment_methods.exclude(status=PaymentMethod.Status.DELETED)
        .filter(public_id=public_id)
        .first()
    )
    if method is None:
        raise PaymentMethodNotFound()
    return method


def revoked_payment_method_count(customer: Customer, *, since: datetime) -> int:
    """Methods the processor revoked since then (DESIGN section 6 score input),
    counted even if the customer deleted them afterwards."""
    return customer.payment_methods.filter(revoked_at__gte=since).count()


def revoked_payment_method_counts(customer_pks, *, since: datetime) -> dict[int, int]:
    """`revoked_payment_method_count` for many customers in one query, keyed by
    customer pk (customers with none are absent)."""
    return dict(
        PaymentMethod.objects.filter(
            customer_id__in=customer_pks, revoked_at__gte=since
        )
        .order_by()
        .values("customer_id")
        .annotate(count=Count("id"))
        .values_list("customer_id", "count")
    )


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


def account_balance(account: str) -> int:
    """Debit-positive sum of an account's lines (credit balances come out negative)."""
    return (
        LedgerLine.objects.filter(account=account).aggregate(total=Sum("amount"))[
            "total"
        ]
        or 0
    )


def wallet_available_balance(merchant) -> int:
    """What the service owes the merchant now: the wallet's credit balance."""
    return -account_balance(wallet_account(merchant.public_id))


@dataclass(frozen=True)
class WalletBalances:
    """A merchant's wallet, derived from the ledger (kobo)."""

    available_balance: int  # owed to the merchant now
    pending_payout: int  # in payouts that are on their way to the bank
    total_paid_out: int  # paid to the bank, less anything reversed after


_PAYOUT_OUTCOMES = (
    LedgerTransaction.Kind.PAYOUT_SETTLED,
    LedgerTransaction.Kind.PAYOUT_RETURNED,
)


def wallet_balances(merchant) -> WalletBalances:
    """One aggregate over the merchant's ledger lines. `payouts_in_transit` and
    `processor_clearing` are shared accounts: the merchant's share is the lines
    of the merchant's own transactions."""
    totals = LedgerLine.objects.filter(
        Q(account=wallet_account(merchant.public_id))
        | Q(transaction__merchant=merchant)
    ).aggregate(
        wallet=Sum("amount", filter=Q(account=wallet_account(merchant.public_id))),
        in_transit=Sum(
            "amount",
            filter=Q(account=PAYOUTS_IN_TRANSIT, transaction__merchant=merchant),
        ),
        paid_out=Sum(
            "amount",
            filter=Q(
                account=PROCESSOR_CLEARING,
                transaction__merchant=merchant,
                transaction__kind__in=_PAYOUT_OUTCOMES,
            ),
        ),
    )
    return WalletBalances(
        available_balance=-(totals["wallet"] or 0),
        pending_payout=-(totals["in_transit"] or 0),
        total_paid_out=-(totals["paid_out"] or 0),
    )


def wallet_transactions(merchant) -> QuerySet[LedgerTransaction]:
    """The ledger transactions that change the merchant's available balance,
    newest first, each annotated with `wallet_change` (its effect on it)."""
    return (
        LedgerTransaction.objects.filter(
            lines__account=wallet_account(merchant.public_id)
        )
        .annotate(wallet_change=-Sum("lines__amount"))
        .order_by("-created_at", "-id")
    )
