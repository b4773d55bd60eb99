"""The merchant guides served under /docs/: the same `docs/*.md` files the
repository holds (one source), rendered with markdown-it-py.

Only the guides listed in GUIDES are served; the rest of `docs/` is written for
the people who build and run the service (INTERNAL_DOCS) and stays in the
repository. A guide may end with a part for operators: everything after the line
GUIDE_END is left off the page.

Rendering, on top of CommonMark with tables:
- raw HTML in a guide is shown as text, never passed through;
- every heading gets GitHub's id (`## Which URLs are allowed` ->
  `#which-urls-are-allowed`), so a link to a section works on both;
- a link to another guide (`wallet.md`, `checkout.md#idempotency`) becomes
  `/docs/wallet/`, `/docs/checkout/#idempotency`, and a link whose text is just the
  file name reads as that guide's title;
- tables scroll sideways in their own box instead of widening a phone's page.
"""

import re
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path

from django.conf import settings
from markdown_it import MarkdownIt
from markdown_it.token import Token

GUIDE_END = "<!-- end of the merchant guide -->"


@dataclass(frozen=True)
class Guide:
    slug: str  # docs/<slug>.md, served at /docs/<slug>/
    title: str  # in the guides' navigation and in links named by file
    summary: str


GUIDES = (
    Guide("quickstart", "Quickstart", "From sign-up to a live checkout in six steps."),
    Guide("api", "API basics", "Envelopes, credentials, API keys and rate limits."),
    Guide("checkout", "Checkout sessions", "Sessions, idempotency, the widget."),
    Guide("plans", "How plans are worked out", "Deposit, installments, due dates."),
    Guide("payment-plans", "Payment plans", "The plan object, its states, reading it."),
    Guide("auto-debit", "Auto-debit", "How and when installments are collected."),
    Guide("payment-methods", "Payment methods", "Customers' cards and bank mandates."),
    Guide("payment-links", "Payment links", "Checkouts without a line of code."),
    Guide("paying", "Paying without a card", "Pay links and the pay page."),
    Guide("webhooks", "Webhooks", "Signed events, retries, replay, the catalogue."),
    Guide("refunds", "Refunds", "Where a refund goes, the fee, negative balances."),
    Guide("disputes", "Disputes", "Chargebacks: the money held, evidence, deadlines."),
    Guide("wallet", "Wallet and payouts", "The fee, your balance, daily payouts."),
    Guide("errors", "Errors", "The two error shapes and every error code."),
    Guide("privacy", "Your customers' data", "What is held, how long, erasure."),
    Guide("audit-log", "Audit log", "Who signed in and changed what, and when."),
    Guide("test-mode", "Test mode", "Test keys, test data, going live."),
    Guide("sandbox", "Sandbox", "Test cards, bank accounts and OTPs."),
    Guide("dashboard", "Dashboard", "Every page of the merchant dashboard."),
    Guide("team", "Your team", "Members, roles and what each may do."),
    Guide("two-factor", "Two-factor sign-in", "Codes, backup codes, your team."),
)
# For maintainers and operators, not merchants: never served.
INTERNAL_DOCS = ("architecture", "decisions", "operations")

_BY_SLUG = {guide.slug: guide for guide in GUIDES}
_GUIDE_LINK = re.compile(r"^(?P<slug>[a-z0-9-]+)\.md(?P<fragment>#[^\s]*)?$")


def guide_of(slug: str) -> Guide | None:
    return _BY_SLUG.get(slug)


def guide_url(slug: str) -> str:
    return f"/docs/{slug}/"


def docs_dir() -> Path:
    return Path(settings.BASE_DIR) / "docs"


@dataclass(frozen=True)
class RenderedGuide:
    guide: Guide
    heading: str  # the file's first-level heading, as text
    html: str  # the rest, as HTML


def guide_render(guide: Guide) -> RenderedGuide:
    """The guide as a page, rendered again only when its file changed."""
    path = docs_dir() / f"{guide.slug}.md"
    return _render(guide, path, path.stat().st_mtime_ns)


@lru_cache(maxsize=64)
def _render(guide: Guide, path: Path, _modified: int) -> RenderedGuide:
    text = path.read_text(encoding="utf-8").split(GUIDE_END, 1)[0]
    tokens = _markdown().parse(text)
    heading = ""
    if len(tokens) >= 3 and tokens[0].type == "heading_open" and tokens[0].tag == "h1":
        heading = _plain_text(tokens[1])
        tokens = tokens[3:]
    html = _markdown().renderer.render(tokens, _markdown().options, {})
    return RenderedGuide(guide=guide, heading=heading or guide.title, html=html)


@cache
def _markdown() -> MarkdownIt:
    markdown = MarkdownIt("commonmark", {"html": False}).enable("table")
    markdown.core.ruler.push("guide_heading_ids", _heading_ids)
    markdown.core.ruler.push("guide_links", _guide_links)
    markdown.core.ruler.push("guide_cell_labels", _cell_labels)
    markdown.add_render_rule("table_open", _table_open)
    markdown.add_render_rule("table_close", _table_close)
    return markdown


def _plain_text(inline: Token) -> str:
    return "".join(
        child.content
        for child in inline.children or ()
        if child.type in ("text", "code_inline")
    )


def heading_id(text: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to
    hyphens."""
    kept = re.sub(r"[^\w\- ]", "", text.strip().lower())
    return kept.replace(" ", "-")


def _heading_ids(state) -> None:
    seen: dict[str, int] = {}
    for index, token in enumerate(state.tokens):
        if token.type != "heading_open":
            continue
        anchor = heading_id(_plain_text(state.tokens[index + 1]))
        count = seen.get(anchor, 0)
        seen[anchor] = count + 1
        token.attrSet("id", anchor if count == 0 else f"{anchor}-{count}")


def _guide_links(state) -> None:
    for token in state.tokens:
        children = token.children or []
        for index, child in enumerate(children):
            if child.type != "link_open":
                continue
            href = str(child.attrGet("href") or "")
            match = _GUIDE_LINK.match(href)
            guide = match and guide_of(match["slug"])
            if not guide:
                continue
            child.attrSet("href", guide_url(guide.slug) + (match["fragment"] or ""))
            label = children[index + 1]
            if label.type == "text" and label.content in (href, f"{guide.slug}.md"):
                label.content = guide.title


def _cell_labels(state) -> None:
    """Each body cell of a table carries its column's name (`data-label`): on a
    phone a table is a stack of cards, each value under its name (site.css)."""
    names: list[str] = []
    column = 0
    for index, token in enumerate(state.tokens):
        if token.type == "thead_open":
            names = []
        elif token.type == "th_open":
            names.append(_plain_text(state.tokens[index + 1]))
        elif token.type == "tr_open":
            column = 0
        elif token.type == "td_open":
            if column < len(names) and names[column]:
                token.attrSet("data-label", names[column])
            column += 1


def _table_open(self, tokens, index, options, env) -> str:
    return '<div class="table-scroll">' + self.renderToken(tokens, index, options, env)


def _table_close(self, tokens, index, options, env) -> str:
    return self.renderToken(tokens, index, options, env) + "</div>"
