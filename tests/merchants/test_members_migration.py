"""The data migration that makes each merchant's account its team's first owner
(merchants 0010): run backwards to the schema before members, a merchant made
there, then forwards again. The owner signs in with the same password, and the
credential version carries over, so the merchant's JWTs stay valid."""

import pytest
from django.contrib.auth.hashers import make_password

from ..migrating import latest, migrate

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("merchants", "0009_refund_policy_one_line")]
AFTER = [("merchants", "0010_members")]


def test_each_merchant_becomes_its_first_owner_with_its_password():
    old = migrate(BEFORE)
    try:
        Merchant = old.get_model("merchants", "Merchant")
        merchant = Merchant.objects.create(
            public_id="mer_migrationcheck0001",
            email="old@shop.example.com",
            password=make_password("Old-Passw0rd-55"),
            credential_version=7,
            business_name="Old shop",
            business_url="https://shop.example.com",
        )

        new = migrate(AFTER)

        Member = new.get_model("merchants", "Member")
        owner = Member.objects.get(merchant_id=merchant.pk)
        assert (owner.email, owner.role, owner.status) == (
            "old@shop.example.com",
            "owner",
            "active",
        )
        assert owner.credential_version == 7
        assert owner.password == merchant.password
        assert owner.public_id.startswith("mem_")
    finally:
        latest()
