"""The public site (DESIGN section 16): the landing page at `/`, the merchant guides
under /docs/ rendered from `docs/*.md`, the icon; and the dashboard's links to the
guides and the API reference."""

import html
import itertools
import os
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from django.contrib.staticfiles import finders

from merchants import guides

from ..conftest import bearer, merchant_jwt
from ..dashboards import sign_in
from ..repository_paths import repository_paths
from ..spec_numbers import spec_numbers

pytestmark = pytest.mark.django_db

DOCS = Path(__file__).resolve().parents[2] / "docs"
URL_SIGNUP = "/dashboard/signup/"


class _Page(HTMLParser):
    """What a reader of a page's main part sees and can follow."""

    def __init__(self):
        super().__init__()
        self.text, self.links, self.ids = [], [], set()
        self._depth = 0  # inside <main>

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self._depth += tag == "main"
        if self._depth and attrs.get("id"):
            self.ids.add(attrs["id"])
        if self._depth and tag == "a":
            self.links.append(attrs.get("href") or "")

    def handle_endtag(self, tag):
        self._depth -= tag == "main"

    def handle_data(self, data):
        if self._depth:
            self.text.append(data)


def read(client, url: str) -> _Page:
    response = client.get(url)
    assert response.status_code == 200, url
    page = _Page()
    page.feed(response.content.decode())
    return page


# --- the landing page -----------------------------------------------------------


def test_the_landing_page_says_what_the_service_is_and_where_to_go(client):
    response = client.get("/")

    assert response.status_code == 200
    page = response.content.decode()
    assert "<h1>Let your customers pay in installments</h1>" in page
    for href in ("/dashboard/signup/", "/dashboard/login/", "/api/redoc/", "/docs/"):
        assert f'href="{href}"' in page, href
    assert "Page not found" not in page


def test_the_landing_page_promises_a_pending_merchant_only_what_it_can_do(
    client, api, merchant_pending
):
    """A pending merchant cannot make an API key, so it cannot build against the
    sandbox yet (issue 25, item 9): the landing page says what it can do."""
    refused = api.post(
        f"/api/v1/merchant/{merchant_pending.public_id}/rotate-api-key",
        {},
        format="json",
        **bearer(merchant_jwt(merchant_pending)),
    )
    assert refused.status_code == 403

    text = " ".join(" ".join(read(client, "/").text).split())

    assert "meanwhile you can build" not in text
    assert "meanwhile you can read the guides and the API reference" in text
    assert (
        "Once your account is approved and API access is on, you make your API key"
        in text
    )


def test_the_landing_page_is_not_a_framework_page_even_in_debug(client, settings):
    settings.DEBUG = True

    response = client.get("/")

    assert response.status_code == 200
    assert "URLconf" not in response.content.decode()


def test_every_page_names_the_sites_icon_and_favicon_ico_finds_it(client):
    for url in ("/", "/docs/", "/docs/quickstart/", "/dashboard/login/", URL_SIGNUP):
        assert (
            'rel="icon" href="/static/img/favicon.svg"'
            in client.get(url).content.decode()
        )

    response = client.get("/favicon.ico")

    assert response.status_code == 301
    assert response["Location"] == "/static/img/favicon.svg"
    assert finders.find("img/favicon.svg")


# --- the guides ---------------------------------------------------------------------


def test_every_doc_is_either_a_merchant_guide_or_internal():
    served = {guide.slug for guide in guides.GUIDES}
    internal = set(guides.INTERNAL_DOCS)

    assert {path.stem for path in DOCS.glob("*.md")} == served | internal
    assert not served & internal


def test_the_guide_index_lists_every_guide(client):
    page = read(client, "/docs/")

    assert [href for href in page.links if href.startswith("/docs/")] == [
        f"/docs/{guide.slug}/" for guide in guides.GUIDES
    ]


def _headings(page: str, level: int) -> list[str]:
    found = re.findall(rf"<h{level}[^>]*>(.*?)</h{level}>", page, re.S)
    return [html.unescape(re.sub(r"<[^>]+>", "", heading)) for heading in found]


@pytest.mark.parametrize("guide", guides.GUIDES, ids=lambda guide: guide.slug)
def test_each_guide_is_its_file_rendered(client, guide):
    source = (DOCS / f"{guide.slug}.md").read_text().split(guides.GUIDE_END)[0]
    source = re.sub(r"```.*?```", "", source, flags=re.S)  # `# ` lines of code

    page = client.get(f"/docs/{guide.slug}/").content.decode()

    assert _headings(page, 1) == [source.splitlines()[0].removeprefix("# ")]
    assert _headings(page, 2) == [
        heading.replace("`", "") for heading in re.findall(r"^## (.+)$", source, re.M)
    ]


@pytest.mark.parametrize("guide", guides.GUIDES, ids=lambda guide: guide.slug)
def test_no_guide_names_a_repository_path(client, guide):
    page = read(client, f"/docs/{guide.slug}/")

    assert repository_paths(" ".join(page.text)) == []
    assert repository_paths(" ".join(page.links)) == []


@pytest.mark.parametrize("guide", guides.GUIDES, ids=lambda guide: guide.slug)
def test_no_guide_numbers_endpoints_as_the_specification_does(client, guide):
    """ "endpoint 9", "### 21. Send a test event: POST ...", a "#" column: the
    specification's numbers, which mean nothing to a merchant (issue 25, item 9)."""
    response = client.get(f"/docs/{guide.slug}/").content.decode()
    page = read(client, f"/docs/{guide.slug}/")
    headings = _headings(response, 2) + _headings(response, 3)

    assert spec_numbers(" ".join(page.text), headings=headings, html=response) == []


def test_the_spec_number_check_catches_what_it_is_for():
    assert spec_numbers("the wallet (endpoint 9) and endpoints 21") == [
        "endpoint 9",
        "endpoints 21",
    ]
    assert spec_numbers("", headings=["21. Send a test event: POST /api/v1/x"])
    assert spec_numbers("", html="<tr><td>10</td><td><code>GET /api/v1/x</code>")
    # Steps of a guide and amounts are not endpoint numbers.
    assert spec_numbers("", headings=["1. Register", "5. Due dates"]) == []
    assert spec_numbers("6 installments of 10 endpoints-free GET /api/v1/x") == []
    assert (
        spec_numbers("", html="<tr><td>409</td><td><code>POST /api/v1/x</code>") == []
    )


def test_links_between_guides_open_their_pages_and_sections(client):
    pages = {
        guide.slug: read(client, f"/docs/{guide.slug}/") for guide in guides.GUIDES
    }
    followed = 0
    for slug, page in pages.items():
        for href in page.links:
            if href.startswith("#"):
                assert href[1:] in page.ids, (slug, href)
            elif href.startswith("/docs/"):
                target, _, fragment = href.removeprefix("/docs/").partition("#")
                target = target.rstrip("/")
                assert target in pages, (slug, href)
                assert not fragment or fragment in pages[target].ids, (slug, href)
                followed += 1
            else:
                assert href.startswith(("https://", "http://", "/")), (slug, href)
    assert followed > 20


def test_a_link_named_by_a_file_reads_as_the_guides_title(client):
    page = client.get("/docs/quickstart/").content.decode()

    assert '<a href="/docs/errors/">Errors</a>' in page
    assert "errors.md" not in page


def test_the_part_for_operators_is_left_off(client):
    source = (DOCS / "auto-debit.md").read_text()
    assert guides.GUIDE_END in source and "## For operators" in source

    page = client.get("/docs/auto-debit/").content.decode()

    assert "For operators" not in page and "Running the engine" not in page
    assert "Testing without waiting a month" in page


@pytest.mark.parametrize("slug", [*guides.INTERNAL_DOCS, "nope", "README"])
def test_internal_docs_and_unknown_names_are_not_served(client, slug):
    assert client.get(f"/docs/{slug}/").status_code == 404


# --- rendering, on files of a test's own -------------------------------------------


@pytest.fixture
def docs(tmp_path, settings):
    """A docs/ folder of the test's own: `docs("quickstart", text)` writes a guide."""
    settings.BASE_DIR = tmp_path
    (tmp_path / "docs").mkdir()
    written = itertools.count(1)

    def write(slug: str, text: str) -> None:
        path = tmp_path / "docs" / f"{slug}.md"
        path.write_text(text)
        # A second apart, whatever the file system's clock resolution.
        stamp = next(written) * 1_000_000_000
        os.utime(path, ns=(stamp, stamp))

    return write


def test_raw_html_in_a_guide_is_shown_as_text(client, docs):
    docs("quickstart", "# Q\n\n<script>alert(1)</script>\n\n<b>bold</b>\n")

    page = client.get("/docs/quickstart/").content.decode()

    assert "<script>alert" not in page and "<b>bold" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page


def test_headings_get_githubs_ids_and_guide_links_are_rewritten(client, docs):
    docs(
        "quickstart",
        "# Q\n\n## Which URLs are allowed?\n\n"
        "## `GET /x` (twice)\n\n## `GET /x` (twice)\n\n"
        "See [wallet.md](wallet.md), [the rules](plans.md#3-deposit), "
        "[above](#which-urls-are-allowed) and [elsewhere](https://example.com/a.md).\n",
    )

    page = client.get("/docs/quickstart/").content.decode()

    assert '<h2 id="which-urls-are-allowed">' in page
    assert '<h2 id="get-x-twice">' in page and '<h2 id="get-x-twice-1">' in page
    assert '<a href="/docs/wallet/">Wallet and payouts</a>' in page
    assert '<a href="/docs/plans/#3-deposit">the rules</a>' in page
    assert '<a href="#which-urls-are-allowed">above</a>' in page
    assert '<a href="https://example.com/a.md">elsewhere</a>' in page


def test_a_guide_that_names_repository_files_is_caught(client, docs):
    docs(
        "quickstart",
        "# Q\n\nSee `payments/ledger/services.py`, docs/plans.md, "
        "[the map](architecture.md) and `payments.ledger.hooks.register`.\n",
    )
    page = read(client, "/docs/quickstart/")

    assert repository_paths(" ".join(page.text)) == [
        "payments/ledger/services.py",
        "docs/plans.md",
        "services.py",
        "plans.md",
        "payments.ledger.hooks.register",
    ]
    assert repository_paths(" ".join(page.links)) == ["architecture.md"]


def test_an_edited_guide_is_served_as_edited(client, docs):
    docs("quickstart", "# First\n")
    assert "<h1>First</h1>" in client.get("/docs/quickstart/").content.decode()

    docs("quickstart", "# Second version\n")

    assert "<h1>Second version</h1>" in client.get("/docs/quickstart/").content.decode()


# --- the dashboard links here ---------------------------------------------------------


def test_the_dashboard_navigation_links_the_guides_and_the_api_reference(
    client, merchant_active
):
    sign_in(client, merchant_active)

    page = client.get("/dashboard/").content.decode()
    nav = page.split('<nav class="sidenav"', 1)[1].split("</nav>", 1)[0]

    assert 'href="/docs/"' in nav
    assert 'href="/api/redoc/"' in nav


def test_the_repository_path_check_leaves_urls_and_event_names_alone():
    text = (
        "POST /api/v1/checkout/sessions, /docs/quickstart/, /static/img/favicon.svg, "
        "/widget.js, installment.paid, payment_plan.installment_paid, "
        "https://pay.example.com/api/v1/webhooks/test, the checkout. Then"
    )

    assert repository_paths(text) == []


def test_an_unknown_address_gets_a_page_of_the_site_not_the_frameworks(client):
    response = client.get("/no/such/page/")

    assert response.status_code == 404
    page = response.content.decode()
    assert "<h1>Page not found</h1>" in page
    assert 'href="/docs/"' in page and 'href="/"' in page


def test_a_customer_is_sent_back_to_their_account_not_to_the_merchant_site(client):
    page = client.get("/account/no-such-page/").content.decode()

    assert "<h1>Page not found</h1>" in page
    assert 'href="/account/"' in page and 'href="/dashboard/"' not in page


def test_each_cell_of_a_guides_table_carries_its_columns_name(client, docs):
    """On a phone a guide's table is a stack of cards, each value under its
    column's name (issue 25 item 10): the name comes with the cell."""
    docs(
        "quickstart",
        "# Q\n\n| status | `amount` | |\n|---|---|---|\n| paid | 5,000 | x |\n\n"
        "| other |\n|---|\n| one |\n",
    )

    page = client.get("/docs/quickstart/").content.decode()

    assert '<td data-label="status">paid</td>' in page
    assert '<td data-label="amount">5,000</td>' in page
    assert "<td>x</td>" in page  # a column without a name: no label
    assert '<td data-label="other">one</td>' in page
