"""The dashboard's refund page as the tests drive it: its URL, the preview, the
confirmation form's hidden fields, and the page's text as a person reads it."""

import html
import re

PLANS = "/dashboard/plans/"


def refund_url(setup) -> str:
    return f"{PLANS}{setup.plan.public_id}/refund/"


def text(response) -> str:
    """The page as a person reads it: tags dropped, entities decoded, spaces
    collapsed."""
    page = re.sub(r"<[^>]+>", " ", response.content.decode())
    return re.sub(r"\s+", " ", html.unescape(page))


def hidden_fields(response) -> dict:
    """The confirmation form's hidden fields, as the browser would post them."""
    page = response.content.decode()
    form = page[page.index('method="post" action="/dashboard/plans/') :]
    form = form[: form.index("</form>")]
    return dict(re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)"', form))


def preview(dashboard, setup, amount="2,000", reason="Returned the phone"):
    return dashboard.get(refund_url(setup), {"amount": amount, "reason": reason})
