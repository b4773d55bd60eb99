"""Fixtures for the merchant dashboard tests (Django's test client)."""

import pytest
from django.test import Client

from ..factories import PASSWORD


def sign_in(client: Client, merchant, password: str = PASSWORD):
    """Sign in through the real form, as a browser would."""
    response = client.post(
        "/dashboard/login/", {"email": merchant.email, "password": password}
    )
    assert response.status_code == 303, response.content.decode()[:2000]
    return client


@pytest.fixture
def dashboard_for():
    """`dashboard_for(merchant)`: a new browser-like client signed in as them."""
    return lambda merchant: sign_in(Client(), merchant)
