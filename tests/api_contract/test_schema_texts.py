"""What the API reference says, read as a merchant reads it in ReDoc and Swagger UI
(DESIGN section 16): pages of the site instead of repository files, summaries in
a merchant's words, and the two pages loading nothing from another site."""

import json
import re

import pytest
from django.contrib.staticfiles import finders

from merchants import guides

from ..repository_paths import repository_paths
from ..spec_numbers import spec_numbers
from .routes import api_views

pytestmark = pytest.mark.django_db

INTERNAL_WORDS = re.compile(r"\bendpoints? \d+|\(internal\)|\bspec\b|\bissue \d+", re.I)
GUIDE_LINK = re.compile(r"\]\((/docs/[^)\s]*)\)")


@pytest.fixture
def schema(api):
    response = api.get("/api/v1/schema/")
    assert response.status_code == 200
    return json.loads(response.content)


def texts(node, where=""):
    """(where, text) for every string of the schema a reader sees."""
    if isinstance(node, dict):
        for key, value in node.items():
            yield from texts(value, f"{where}/{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from texts(value, f"{where}/{index}")
    elif isinstance(node, str):
        yield where, node


def test_no_schema_text_names_a_repository_path(schema):
    named = {where: repository_paths(text) for where, text in texts(schema)}

    assert {where: paths for where, paths in named.items() if paths} == {}


def test_no_schema_text_uses_the_services_internal_numbers(schema):
    internal = [
        (where, text)
        for where, text in texts(schema)
        if where.endswith(("summary", "description", "title"))
        and INTERNAL_WORDS.search(text)
    ]

    assert internal == []


def test_no_schema_text_numbers_endpoints_as_the_specification_does(schema):
    """Every string a reader of the reference can see, not only the descriptions
    (issue 25, item 9)."""
    numbered = {
        where: found for where, text in texts(schema) if (found := spec_numbers(text))
    }

    assert numbered == {}


def test_docstrings_written_for_maintainers_stay_out_of_the_schema(schema):
    shown = " ".join(" ".join(text.split()) for _, text in texts(schema))
    docstrings = [
        " ".join(view.__doc__.split())
        for view in api_views().values()
        if view.__doc__ and view.__module__.split(".")[0] != "rest_framework"
    ]

    assert len(docstrings) > 5
    assert [doc for doc in docstrings if doc in shown] == []


def test_the_reference_links_to_the_guides_and_every_link_opens(schema, client):
    links = {link for _, text in texts(schema) for link in GUIDE_LINK.findall(text)}

    assert "/docs/quickstart/" in links and "/docs/" in links
    assert "/docs/errors/#error-codes" in links
    for link in links:
        path, _, fragment = link.partition("#")
        page = client.get(path)
        assert page.status_code == 200, link
        assert not fragment or f' id="{fragment}"' in page.content.decode(), link


def test_the_introduction_points_to_the_quickstart(schema):
    assert "[quickstart](/docs/quickstart/)" in schema["info"]["description"]


def test_every_group_of_operations_is_described(schema):
    used = {
        tag
        for operations in schema["paths"].values()
        for operation in operations.values()
        for tag in operation.get("tags", [])
    }
    described = {tag["name"]: tag.get("description") for tag in schema["tags"]}

    assert used <= set(described)
    assert all(described.values())


def test_every_guide_the_reference_names_is_served(schema):
    slugs = {
        link.removeprefix("/docs/").split("/")[0]
        for _, text in texts(schema)
        for link in GUIDE_LINK.findall(text)
    } - {""}

    assert slugs <= {guide.slug for guide in guides.GUIDES}


# --- the pages load nothing from another site ------------------------------------


def test_redoc_loads_a_bundle_whose_logo_is_ours(client):
    page = client.get("/api/redoc/").content.decode()
    (bundle_url,) = re.findall(r'<script src="(/api/redoc/redoc[^"]+)"', page)

    response = client.get(bundle_url)

    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/javascript")
    assert "immutable" in response["Cache-Control"]
    body = response.content.decode()
    assert "cdn.redoc.ly" not in body
    assert 'src:"/static/img/redoc-logo.svg"' in body
    assert finders.find("img/redoc-logo.svg")
    assert "sourceMappingURL=/static/drf_spectacular_sidecar/" in body


def test_the_bundle_without_its_version_is_kept_briefly(client):
    response = client.get("/api/redoc/redoc.standalone.js")

    assert response.status_code == 200
    assert "immutable" not in response["Cache-Control"]


def test_swagger_ui_shows_no_badge_from_the_validator_site(client):
    script = client.get("/api/docs/?script=").content.decode()

    assert '"validatorUrl": null' in script


@pytest.mark.parametrize("path", ["/api/docs/", "/api/redoc/"])
def test_both_pages_link_back_to_the_site_and_the_guides(client, path):
    page = client.get(path).content.decode()

    assert 'href="/docs/"' in page and 'href="/"' in page
    assert 'rel="icon" href="/static/img/favicon.svg"' in page
