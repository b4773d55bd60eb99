"""Seeding for the wallet section, run inside Django:

    python -m bench.wallet_seed LINES
    python -m bench.wallet_seed since MERCHANT_PK [MERCHANT_PK ...]

The first: one approved merchant with an API key whose wallet has LINES lines:
LINES collections (each 3 ledger lines: clearing, fee, wallet) over the past
year, put in by COPY. Prints {id, key, pk} as JSON.

The second, once every merchant is seeded: the ledger checkpoint the
`payments-ledger-checkpoint` schedule runs, then 200 more collections of each
merchant through the posting service: the lines since the checkpoint that every
read adds, the same number for every merchant (a checkpoint per merchant's seed
would absorb the earlier merchants' lines since, and only the last one seeded
would have any).
"""

import json
import sys
from datetime import timedelta

import django

django.setup()

from django.db import connection, transaction  # noqa: E402
from django.utils import timezone  # noqa: E402

from config.api.ids import random_token  # noqa: E402
from merchants import services  # noqa: E402
from merchants.models import Merchant  # noqa: E402
from payments.customers.models import Customer  # noqa: E402
from payments.ledger.balances import balances_checkpoint  # noqa: E402
from payments.ledger.fees import platform_fee  # noqa: E402
from payments.ledger.models import (  # noqa: E402
    PLATFORM_FEES,
    PROCESSOR_CLEARING,
    LedgerLine,
    LedgerTransaction,
    wallet_account,
)
from payments.ledger.services import collection_post  # noqa: E402

CHUNK = 100_000
AMOUNT = 50_000
SINCE = 200
_TXN = [
    "id",
    "public_id",
    "kind",
    "reference",
    "processor_reference",
    "resource_type",
    "resource_id",
    "merchant_id",
    "customer_id",
    "currency",
    "amount",
    "fee",
    "net",
    "description",
    "created_at",
]


def _merchant(tag: str):
    merchant = services.merchant_create(
        email=f"wallet{tag}@bench.ng",
        password="Bench-Passw0rd-42",
        business_name=f"Wallet {tag}",
        business_url="https://bench.ng",
    )
    merchant = services.merchant_approve(merchant=merchant)
    merchant = services.merchant_set_api_access(merchant=merchant, enabled=True)
    merchant = services.merchant_set_rate_plan(
        merchant=merchant, rate_plan="production"
    )
    _, key = services.api_key_rotate(merchant=merchant)
    return merchant, key


def _copy_chunk(cursor, merchant, customer, first: int, count: int) -> None:
    cursor.execute(
        "SELECT nextval(pg_get_serial_sequence(%s, 'id')) FROM generate_series(1, %s)",
        [LedgerTransaction._meta.db_table, count],
    )
    ids = [row[0] for row in cursor.fetchall()]
    fee = platform_fee(AMOUNT)
    start = timezone.now() - timedelta(days=365)
    step = timedelta(days=365) / max(1, first + count)
    wallet = wallet_account(merchant.public_id)
    tag = merchant.public_id[-8:]
    when = [start + step * (first + n) for n in range(count)]
    txn_sql = f"COPY {LedgerTransaction._meta.db_table} ({', '.join(_TXN)}) FROM STDIN"
    with cursor.cursor.copy(txn_sql) as copy:
        for n, pk in enumerate(ids):
            reference = f"inst_b{tag}{first + n}_a1"
            copy.write_row(
                [
                    pk,
                    f"txn_b{tag}{first + n}",
                    "collection",
                    reference,
                    reference,
                    "installment",
                    f"inst_b{tag}{first + n}",
                    merchant.pk,
                    customer.pk,
                    "NGN",
                    AMOUNT,
                    fee,
                    AMOUNT - fee,
                    "Bench installment",
                    when[n],
                ]
            )
    line_sql = (
        f"COPY {LedgerLine._meta.db_table} "
        "(transaction_id, account, amount, created_at) FROM STDIN"
    )
    with cursor.cursor.copy(line_sql) as copy:
        for n, pk in enumerate(ids):
            copy.write_row([pk, PROCESSOR_CLEARING, AMOUNT, when[n]])
            copy.write_row([pk, PLATFORM_FEES, -fee, when[n]])
            copy.write_row([pk, wallet, -(AMOUNT - fee), when[n]])


def wallet(lines: int) -> None:
    merchant, key = _merchant(f"{lines}_{random_token(8).lower()}")
    customer = Customer.objects.create(
        email=f"payer{merchant.pk}@mail.ng",
        password="!",
        first_name="Ada",
        last_name="Payer",
    )
    with transaction.atomic(), connection.cursor() as cursor:
        for first in range(0, lines, CHUNK):
            _copy_chunk(cursor, merchant, customer, first, min(CHUNK, lines - first))
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE payments_ledgerline")
        cursor.execute("VACUUM ANALYZE payments_ledgertransaction")
    print(json.dumps({"id": merchant.public_id, "key": key, "pk": merchant.pk}))


def since(merchant_pks: list[int]) -> None:
    balances_checkpoint()
    for merchant in Merchant.objects.filter(pk__in=merchant_pks):
        customer = Customer.objects.get(email=f"payer{merchant.pk}@mail.ng")
        for n in range(SINCE):
            reference = f"inst_s{merchant.public_id[-8:]}{n}_a1"
            collection_post(
                merchant=merchant,
                customer=customer,
                amount=AMOUNT,
                reference=reference,
                processor_reference=reference,
                resource_type="installment",
                resource_id=reference[:-3],
            )


if __name__ == "__main__":
    if sys.argv[1] == "since":
        since([int(pk) for pk in sys.argv[2:]])
    else:
        wallet(int(sys.argv[1]))
