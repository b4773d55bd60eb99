"""Every dashboard page with the demo data `make run` seeds, in a real browser
at 1280x800 and at a phone's 390x844 (DESIGN section 16, issue 18).

The test seeds with the command `make run` calls and signs in with the password
it printed, so it proves the seed fills each page: each page shows its data,
never its empty state. At 390 px no page is wider than the screen, and no table
scrolls sideways (tables are stacks of cards there). No page logs a console error.

Screenshots: tests/screenshots/test_every_dashboard_page_<size>_/.
"""

import pytest

from installments.plans.models import PaymentPlan
from merchants.demo import DEMO_MERCHANT_EMAIL
from merchants.models import Merchant

from .conftest import sign_in

pytestmark = pytest.mark.django_db(transaction=True)

SIZES = {
    "desktop": {"width": 1280, "height": 800},
    "phone": {"width": 390, "height": 844},
}


@pytest.fixture
def console_errors(page):
    found = []
    page.on(
        "console",
        lambda message: message.type == "error" and found.append(message.text),
    )
    return found


class Visit:
    """Open a page, check it fits (on a phone) and take its screenshot."""

    def __init__(self, page, size, screenshot):
        self.page, self.size, self.screenshot = page, size, screenshot

    def __call__(self, path: str, name: str) -> None:
        self.page.goto(path)
        self.check(name)

    def check(self, name: str) -> None:
        self.page.wait_for_load_state()
        self.screenshot(name)
        width = self.page.evaluate("document.documentElement.scrollWidth")
        assert width <= self.size["width"], (
            f"{self.page.url} is {width} px wide: {self.too_wide()}"
        )
        for table in self.page.locator("table.table").all():
            # On a phone a table is a stack of cards: it never scrolls sideways.
            overflows = table.evaluate("t => t.scrollWidth > t.clientWidth + 1")
            assert not overflows, (self.page.url, table.get_attribute("data-testid"))

    def too_wide(self) -> list[str]:
        """The outermost elements reaching past the screen's right edge."""
        return self.page.evaluate(
            """width => [...document.querySelectorAll("body *")]
              .filter(e => e.getBoundingClientRect().right > width + 1
                && e.parentElement.getBoundingClientRect().right <= width + 1)
              .map(e => e.tagName + "." + e.className).slice(0, 5)""",
            self.size["width"],
        )

    def rows(self, testid: str) -> int:
        return self.page.get_by_test_id(testid).locator("tbody tr").count()


@pytest.mark.parametrize("size_name", list(SIZES))
def test_every_dashboard_page(
    page, size_name, screenshot, demo_password, console_errors
):
    size = SIZES[size_name]
    page.set_viewport_size(size)
    merchant = Merchant.objects.get(email=DEMO_MERCHANT_EMAIL, livemode=True)
    plans = {
        p.order_reference: p for p in PaymentPlan.objects.filter(merchant=merchant)
    }
    assert {p.status for p in plans.values()} == {
        "active",
        "completed",
        "defaulted",
        "cancelled",
    }
    visit = Visit(page, size, screenshot)

    sign_in(page, merchant, demo_password)
    visit.check("overview")
    assert page.get_by_text("No API key yet.").count() == 0
    assert "127.0.0.1" in page.get_by_role("region", name="Settings").inner_text()
    if size_name == "phone":
        nav = page.get_by_role("navigation", name="Dashboard")
        for link in nav.get_by_role("link").all():
            box = link.bounding_box()
            assert box["x"] >= 0 and box["x"] + box["width"] <= size["width"], (
                link.inner_text()
            )

    visit("/dashboard/keys/", "keys")
    assert visit.rows("live-key") == 1 and visit.rows("key-history") == 1

    visit("/dashboard/plans/", "plans")
    assert visit.rows("plans") == len(plans) == 9
    for order, plan in sorted(plans.items()):
        visit(f"/dashboard/plans/{plan.public_id}/", f"plan-{plan.status}-{order}")
        assert (
            page.get_by_test_id("plan-status").inner_text().lower().replace(" ", "_")
            == plan.status
        )
        assert visit.rows("installments") == plan.installments.count()
    for refunded in ("DEMO-1001", "DEMO-1002"):
        visit(f"/dashboard/plans/{plans[refunded].public_id}/", f"refunds-{refunded}")
        assert visit.rows("refunds") == 1
    assert page.get_by_test_id("refunds-empty").count() == 0
    waiting = PaymentPlan.objects.filter(
        merchant=merchant, installments__status="action_required"
    ).first()
    if waiting is not None:  # reachable unless holidays moved its due date
        visit(f"/dashboard/plans/{waiting.public_id}/", "plan-action-required")
        page.get_by_test_id("action-required").wait_for()

    active = plans["DEMO-1006"]
    visit(f"/dashboard/plans/{active.public_id}/", "refund-form")
    form = page.get_by_test_id("refund-form")
    form.get_by_label("Amount").fill("1000")
    form.get_by_label("Reason").fill("Part of the order was returned.")
    form.get_by_role("button", name="Review refund").click()
    page.get_by_test_id("refund-preview").wait_for()
    visit.check("refund-preview")
    visit(f"/dashboard/plans/{active.public_id}/cancel/", "cancel")
    assert visit.rows("cancel-installments") == 4

    visit("/dashboard/wallet/", "wallet")
    for table in ("transactions", "refund-movements", "payouts"):
        assert visit.rows(table) >= 1, table
    assert page.get_by_test_id("payout-account-name").inner_text()
    visit("/dashboard/wallet/payout-account/", "payout-account")

    visit("/dashboard/webhooks/", "webhooks")
    assert visit.rows("event-log") >= 10
    assert page.get_by_test_id("event-log-empty").count() == 0
    page.get_by_test_id("event-log").locator("tbody tr a").first.click()
    page.get_by_test_id("attempts").wait_for()
    visit.check("webhook-event")
    assert visit.rows("attempts") >= 1

    visit("/dashboard/links/", "links")
    assert visit.rows("links") == 1
    page.get_by_test_id("links").locator("tbody tr a").first.click()
    page.get_by_test_id("link-sessions").wait_for()
    visit.check("link")
    assert visit.rows("link-sessions") == 1

    visit("/dashboard/settings/", "settings")
    visit("/dashboard/password/", "password")
    assert console_errors == []
