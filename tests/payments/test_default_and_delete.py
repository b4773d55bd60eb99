"""Set default (19) and delete (20): exactly one default, held by the database."""

import threading

import pytest
from django.db import IntegrityError, connection, transaction
from django.db.models import Q

from payments.methods.selectors import payment_methods_chargeable
from payments.models import PaymentMethod

from ..factories import CustomerFactory
from .conftest import add_bank, add_card, postgres_only, sign_in

pytestmark = pytest.mark.django_db


def defaults(who) -> list[str]:
    return [m["id"] for m in who.methods() if m["is_default"]]


def test_set_default_marks_one_and_clears_the_others(alice):
    card = add_card(alice)
    bank = add_bank(alice)
    assert defaults(alice) == [card["id"]]

    response = alice.put(f"/api/v1/payment-methods/{bank['id']}/default")

    assert response.status_code == 200
    assert response.json() == {
        "ok": True,
        "message": "Access Bank ••••6780 is now your default payment method.",
    }
    assert defaults(alice) == [bank["id"]]
    # Setting it again is harmless.
    assert (
        alice.put(f"/api/v1/payment-methods/{bank['id']}/default/").status_code == 200
    )
    assert defaults(alice) == [bank["id"]]


def test_the_database_refuses_a_second_default(alice):
    card = add_card(alice)
    bank = add_bank(alice)

    with pytest.raises(IntegrityError), transaction.atomic():
        PaymentMethod.objects.filter(public_id=bank["id"]).update(is_default=True)

    assert PaymentMethod.objects.get(public_id=card["id"]).is_default


def test_the_database_refuses_an_inactive_default(alice):
    card = add_card(alice)

    with pytest.raises(IntegrityError), transaction.atomic():
        PaymentMethod.objects.filter(public_id=card["id"]).update(
            status=PaymentMethod.Status.REVOKED
        )


def test_delete_removes_the_method_from_the_listing_and_from_charging(alice):
    card = add_card(alice)
    bank = add_bank(alice)

    response = alice.delete(f"/api/v1/payment-methods/{bank['id']}")

    assert response.status_code == 200
    assert response.json() == {
        "ok": True,
        "message": "Access Bank ••••6780 was removed.",
    }
    assert [m["id"] for m in alice.methods()] == [card["id"]]
    assert [m.public_id for m in payment_methods_chargeable(alice.customer)] == [
        card["id"]
    ]
    # The row stays for the history of charges made with it.
    assert PaymentMethod.objects.get(public_id=bank["id"]).deleted_at is not None
    assert alice.delete(f"/api/v1/payment-methods/{bank['id']}").status_code == 404


def test_deleting_the_default_promotes_the_newest_remaining_active_method(alice):
    oldest = add_card(alice, "4084084084084081")
    add_card(alice, "4084080000000409")
    newest = add_bank(alice)
    assert defaults(alice) == [oldest["id"]]

    alice.delete(f"/api/v1/payment-methods/{oldest['id']}")

    assert defaults(alice) == [newest["id"]]


def test_deleting_the_last_method_leaves_no_default(alice):
    card = add_card(alice)

    alice.delete(f"/api/v1/payment-methods/{card['id']}")

    assert alice.methods() == []
    assert not PaymentMethod.objects.filter(is_default=True).exists()


def test_the_listing_shows_the_default_first_and_carries_total(alice):
    add_card(alice)
    bank = add_bank(alice, is_default=True)

    response = alice.get(f"/api/v1/payment-methods/customers/{alice.id}?limit=1")

    assert response.json()["total"] == 2
    assert [m["id"] for m in response.json()["data"]] == [bank["id"]]


@postgres_only
@pytest.mark.django_db(transaction=True)
def test_concurrent_set_default_requests_leave_exactly_one_default():
    who = sign_in(CustomerFactory())
    ids = [add_card(who)["id"], add_bank(who, "0123456780")["id"]]
    ids += [add_bank(who, f"01234567{digit}0")["id"] for digit in "0123"]
    barrier = threading.Barrier(len(ids) * 2)
    statuses = []

    def set_default(method_id):
        client = sign_in(who.customer)
        barrier.wait()
        try:
            statuses.append(
                client.put(f"/api/v1/payment-methods/{method_id}/default").status_code
            )
        finally:
            connection.close()

    threads = [threading.Thread(target=set_default, args=(i,)) for i in ids * 2]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert statuses == [200] * len(threads)
    assert (
        PaymentMethod.objects.filter(
            Q(customer=who.customer) & Q(is_default=True)
        ).count()
        == 1
    )
