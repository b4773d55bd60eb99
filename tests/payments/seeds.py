"""Many ledger collections written at once, for the export tests."""

from django.db import connection

from payments.ledger.models import PLATFORM_FEES, PROCESSOR_CLEARING, wallet_account

AMOUNT = 10_000  # kobo: fee 250, net 9,750


FEE, NET = 250, 9_750


def seed_collections(merchant, count: int) -> None:
    """`count` collections of AMOUNT into the merchant's wallet, each balanced as
    the engine posts them, written by three set-based statements."""
    with connection.cursor() as cursor:
        cursor.execute(
            """
            INSERT INTO payments_ledgertransaction (public_id, kind, reference,
                processor_reference, resource_type, resource_id, merchant_id,
                currency, amount, fee, net, description, created_at)
            SELECT 'txn_seed' || n, 'collection', 'inst_seed' || n,
                'inst_seed' || n || '_a1', 'installment', 'inst_seed' || n, %s,
                'NGN', %s, %s, %s, 'Installment ' || n || ', order =SEED-' || n,
                now() - n * interval '1 second'
            FROM generate_series(1, %s) AS n
            """,
            [merchant.pk, AMOUNT, FEE, NET, count],
        )
        for account, amount in (
            (PROCESSOR_CLEARING, AMOUNT),
            (PLATFORM_FEES, -FEE),
            (wallet_account(merchant.public_id), -NET),
        ):
            cursor.execute(
                """
                INSERT INTO payments_ledgerline (transaction_id, account, amount,
                    created_at)
                SELECT id, %s, %s, created_at FROM payments_ledgertransaction
                WHERE public_id LIKE 'txn_seed%%'
                """,
                [account, amount],
            )
