"""config/db/rows.py: the hot-path look-ups and inserts give what the ORM gives."""

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from django.db import IntegrityError, connection, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from config.db.rows import OneRow, bulk_insert, insert_row
from merchants import services as merchant_services
from merchants.models import ApiKey, Merchant
from merchants.selectors import live_api_key
from webhooks.models import Delivery, Event

from ..factories import MerchantFactory

pytestmark = pytest.mark.django_db

LIVE_KEY = OneRow(
    ApiKey, equals=("key_hash",), also="t.revoked_at IS NULL", parent="merchant"
)


def field_values(instance) -> dict:
    return {f.attname: getattr(instance, f.attname) for f in instance._meta.fields}


def test_one_row_builds_the_same_objects_as_the_orm():
    merchant = MerchantFactory(
        allowed_schedule_types=["weekly", "monthly"], webhook_secret="whsec_abc"
    )
    key = ApiKey.objects.create(
        merchant=merchant, key_hash="a" * 64, display_prefix="sk_live"
    )

    found = LIVE_KEY.first(key_hash="a" * 64)

    assert field_values(found) == field_values(ApiKey.objects.get(pk=key.pk))
    # The parent comes with it (no query), converted as the ORM converts it.
    with CaptureQueriesContext(connection) as queries:
        parent = found.merchant
    assert len(queries) == 0
    assert field_values(parent) == field_values(Merchant.objects.get(pk=merchant.pk))
    assert parent.allowed_schedule_types == ["weekly", "monthly"]
    assert parent.webhook_secret == "whsec_abc"


def test_one_row_misses_and_honours_its_extra_condition():
    merchant = MerchantFactory()
    ApiKey.objects.create(
        merchant=merchant,
        key_hash="b" * 64,
        display_prefix="sk_live",
        revoked_at=timezone.now(),
    )

    assert LIVE_KEY.first(key_hash="b" * 64) is None
    assert LIVE_KEY.first(key_hash="c" * 64) is None


def test_insert_row_sets_the_key_and_fills_auto_fields():
    merchant = MerchantFactory()
    key = ApiKey(merchant=merchant, key_hash="d" * 64, display_prefix="sk_live")

    insert_row(key)

    stored = ApiKey.objects.get(pk=key.pk)
    assert stored.created_at is not None and key.created_at == stored.created_at
    assert key._state.adding is False


def test_insert_row_refuses_a_duplicate_and_leaves_the_transaction_usable():
    merchant = MerchantFactory()
    insert_row(ApiKey(merchant=merchant, key_hash="e" * 64, display_prefix="x"))

    with pytest.raises(IntegrityError):
        insert_row(ApiKey(merchant=merchant, key_hash="e" * 64, display_prefix="x"))
    assert ApiKey.objects.filter(key_hash="e" * 64).count() == 1


def make_events(merchant, count: int) -> list[Event]:
    now = timezone.now()
    return [
        Event(
            merchant=merchant,
            event_type="installment.paid",
            body=f'{{"n": {n}, "text": "tab\\t quote\\" back\\\\slash naira \u20a6"}}',
            created_at=now,
        )
        for n in range(count)
    ]


def test_bulk_insert_writes_every_row_as_given_and_sets_the_keys():
    merchant = MerchantFactory()
    events = make_events(merchant, 5)

    bulk_insert(events)
    deliveries = [
        Delivery(event=e, next_attempt_at=e.created_at + timedelta(seconds=1))
        for e in events
    ]
    bulk_insert(deliveries)

    assert all(e.pk for e in events) and len({e.pk for e in events}) == 5
    for event in events:
        assert field_values(Event.objects.get(pk=event.pk)) == field_values(event)
    assert Delivery.objects.filter(event__in=events).count() == 5


def test_bulk_insert_refuses_a_batch_with_a_duplicate_whole():
    merchant = MerchantFactory()
    first = make_events(merchant, 1)
    bulk_insert(first)
    batch = make_events(merchant, 2)
    batch[1].public_id = first[0].public_id

    with pytest.raises(IntegrityError), transaction.atomic():
        bulk_insert(batch)
    assert Event.objects.count() == 1


def test_a_key_rotation_still_answers_through_the_cached_lookup():
    merchant = merchant_services.merchant_set_api_access(
        merchant=merchant_services.merchant_approve(merchant=MerchantFactory()),
        enabled=True,
    )
    _, old = merchant_services.api_key_rotate(merchant=merchant)
    _, new = merchant_services.api_key_rotate(merchant=merchant)

    assert live_api_key(old) is None
    assert live_api_key(new).merchant.pk == merchant.pk


def test_bulk_insert_prepares_fields_that_are_not_plain_values():
    """Encrypted and JSON fields go through Django's preparation (only plain
    int/str/bool/None values of plain field classes skip it)."""
    built = [
        MerchantFactory.build(webhook_secret=f"whsec_{n}", allowed_schedule_types=[n])
        for n in range(2)
    ]

    bulk_insert(built)

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT webhook_secret FROM merchants_merchant WHERE id = %s", [built[0].pk]
        )
        assert "whsec_0" not in cursor.fetchone()[0]
    stored = Merchant.objects.get(pk=built[1].pk)
    assert (stored.webhook_secret, stored.allowed_schedule_types) == ("whsec_1", [1])


def test_bulk_insert_writes_datetimes_as_the_orm_does():
    """An aware datetime is stored as the same instant whatever its zone, None
    as NULL, `auto_now_add` is filled in on the instance, and a naive datetime
    still takes Django's path: warned, and read in the default zone (Lagos)."""
    merchant = MerchantFactory()
    events = make_events(merchant, 3)
    bulk_insert(events)
    lagos, utc_plus_5 = ZoneInfo("Africa/Lagos"), ZoneInfo("Asia/Karachi")
    at = datetime(2026, 11, 2, 10, 0, tzinfo=lagos)
    deliveries = [
        Delivery(event=events[0], next_attempt_at=at),
        Delivery(event=events[1], next_attempt_at=at.astimezone(utc_plus_5)),
        Delivery(event=events[2], next_attempt_at=datetime(2026, 11, 2, 10, 0)),
    ]

    with pytest.warns(RuntimeWarning, match="naive datetime"):
        bulk_insert(deliveries)

    stored = Delivery.objects.filter(event__in=events).order_by("event_id")
    assert [d.next_attempt_at for d in stored] == [at, at, at]
    assert [d.delivered_at for d in stored] == [None, None, None]
    keys = [
        ApiKey(merchant=owner, key_hash=f"{n}" * 64, display_prefix="sk_live")
        for n, owner in enumerate([merchant, MerchantFactory()])
    ]
    before = timezone.now()
    bulk_insert(keys)
    for key in keys:
        assert before <= key.created_at <= timezone.now()
        assert ApiKey.objects.get(pk=key.pk).created_at == key.created_at


def test_insert_row_stores_an_aware_datetime_as_the_instant_it_is():
    """On every backend: a time given in another zone is found again by the same
    instant (SQLite takes Django's conversion to UTC text, PostgreSQL the value
    as it is)."""
    events = make_events(MerchantFactory(), 1)
    bulk_insert(events)
    at = datetime(2026, 11, 2, 10, 0, tzinfo=ZoneInfo("Africa/Lagos"))
    delivery = Delivery(
        event=events[0], next_attempt_at=at.astimezone(ZoneInfo("Asia/Karachi"))
    )

    insert_row(delivery)

    assert Delivery.objects.get(next_attempt_at=at).pk == delivery.pk
    assert Delivery.objects.filter(next_attempt_at__lt=at).count() == 0
