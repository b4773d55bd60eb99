"""The merchant dashboard over Django's test client (the `dashboard_for`
fixture of tests/conftest.py signs a merchant in)."""

from django.test import Client

from .factories import PASSWORD


def sign_in(client: Client, merchant, password: str = PASSWORD):
    """Sign in through the real form, as a browser would."""
    response = client.post(
        "/dashboard/login/", {"email": merchant.email, "password": password}
    )
    assert response.status_code == 303, response.content.decode()[:2000]
    return client
