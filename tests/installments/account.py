"""The customer's `/account/` pages over Django's test client."""

import re

from django.test import Client

from ..factories import PASSWORD


def text(response) -> str:
    return re.sub(r"\s+", " ", response.content.decode())


def signed_in(email: str) -> Client:
    client = Client()
    response = client.post("/account/login/", {"email": email, "password": PASSWORD})
    assert response.status_code == 303, response.content
    return client
