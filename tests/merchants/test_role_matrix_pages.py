"""The permission table on the dashboard, as a generated matrix: every page of
every app x every role x GET and POST, compared with `roles.may` (DESIGN
section 20, docs/team.md).

The walk finds every dashboard URL whose view uses MerchantLoginRequiredMixin,
so a page added later is in the matrix without a line here. Path parameters
are filled with ids that name nothing: the permission is checked before the
page looks anything up, so a refused role gets the 403 page and an allowed role
anything else but that page (a 404 for the unknown id, a 400 for an empty
form...), never a 500.
"""

import re

import pytest

from merchants.dashboard.auth import MerchantLoginRequiredMixin
from merchants.team.roles import PERMISSIONS, Role, may

from .pages import PAGES
from .team import signed_in, team_of

pytestmark = pytest.mark.django_db
FORBIDDEN = "merchants/dashboard/forbidden.html"


def concrete(path: str) -> str:
    return re.sub(r"<(?:\w+:)?(\w+)>", lambda m: f"{m.group(1)}_unknown", path)


def needed(view: type, method: str) -> str:
    instance = view()
    request = type("Request", (), {"method": method.upper(), "POST": {}})()
    return instance.needed_permission(request)


def test_every_page_names_a_permission_of_the_table():
    assert len(PAGES) > 30
    for path, view in PAGES.items():
        assert needed(view, "get") in PERMISSIONS, path
        if hasattr(view, "post"):
            assert needed(view, "post") in PERMISSIONS, path


def test_a_page_naming_no_permission_is_refused_to_everyone(merchant_active):
    class Unnamed(MerchantLoginRequiredMixin):
        pass

    request = type("Request", (), {"method": "GET", "POST": {}})()
    assert Unnamed().needed_permission(request) is None


@pytest.mark.parametrize("path", sorted(PAGES))
def test_each_page_answers_each_role_as_the_table_says(path, merchant_active):
    view = PAGES[path]
    team = team_of(merchant_active)
    url = concrete(path)
    methods = ["get"] + (["post"] if hasattr(view, "post") else [])
    for role in Role.values:
        client = signed_in(team[role])
        for method in methods:
            response = getattr(client, method)(url)
            refused = response.status_code == 403 and FORBIDDEN in [
                template.name for template in response.templates
            ]
            allowed = may(role, needed(view, method))
            assert refused is not allowed, (role, method, path, response.status_code)
            assert response.status_code < 500, (role, method, path)


def test_the_settings_page_asks_webhooks_for_the_webhook_and_settings_for_the_rest(
    merchant_active,
):
    team = team_of(merchant_active)
    developer, admin = signed_in(team["developer"]), signed_in(team["admin"])
    hook = {"action": "webhook_url", "webhook_url": "https://hooks.example.com/in"}
    plan = {"action": "reschedules", "customer_reschedules_allowed": "2"}

    assert developer.post("/dashboard/settings/", hook).status_code == 303
    assert developer.post("/dashboard/settings/", plan).status_code == 403
    assert admin.post("/dashboard/settings/", plan).status_code in (303, 400)
    assert signed_in(team["support"]).post(
        "/dashboard/settings/", hook
    ).status_code == (403)
