"""Staff admin and an account's two sides (test mode, DESIGN section 21): the
merchant list is the live accounts', an account's page shows its test side
read-only (its id and its keys), and no action or page reaches a test side."""

import pytest
from django.contrib.auth import get_user_model

from merchants import services as merchant_services
from merchants.models import Merchant

pytestmark = pytest.mark.django_db

LIST = "/admin/merchants/merchant/"


@pytest.fixture
def staff_client(client):
    staff = get_user_model().objects.create_superuser(
        "staff", "staff@installments.ng", "Staff-Passw0rd-1"
    )
    client.force_login(staff)
    return client


@pytest.fixture
def account(merchant_with_key):
    merchant = merchant_with_key.merchant
    merchant_services.api_key_rotate(merchant=merchant, mode="test")
    return merchant, merchant_services.test_side_for(merchant)


def test_the_list_shows_live_accounts_only(staff_client, account):
    live, test = account

    page = staff_client.get(LIST).content.decode()

    assert live.public_id in page
    assert test.public_id not in page
    searched = staff_client.get(LIST, {"q": live.public_id}).content.decode()
    assert test.public_id not in searched


def test_an_accounts_page_shows_its_test_side_on_one_line(staff_client, account):
    live, test = account

    page = staff_client.get(f"{LIST}{live.pk}/change/").content.decode()

    assert f"{test.public_id}: 1 test key(s) in use, 1 made" in page


def test_an_account_without_a_test_side_says_so(staff_client, merchant_with_key):
    merchant = merchant_with_key.merchant

    page = staff_client.get(f"{LIST}{merchant.pk}/change/").content.decode()

    assert "not made yet" in page


def test_a_test_sides_own_page_is_not_found(staff_client, account):
    _, test = account

    assert staff_client.get(f"{LIST}{test.pk}/change/").status_code == 302


def test_actions_never_reach_a_test_side(staff_client, account):
    live, test = account

    staff_client.post(
        LIST,
        {"action": "suspend", "_selected_action": [test.pk], "confirm": "yes"},
    )

    test.refresh_from_db()
    live.refresh_from_db()
    assert test.status == Merchant.Status.ACTIVE
    assert live.status == Merchant.Status.ACTIVE
