"""Every signed-in dashboard page, found by walking the URLs (the role matrix
and test mode's band read it), so that a page added later is covered without
a line here."""

from merchants.dashboard.auth import MerchantLoginRequiredMixin

from ..api_contract.routes import class_views


def dashboard_pages() -> dict[str, type]:
    """`{path with <params>: view class}` of every signed-in dashboard page."""
    return {
        "/" + route: view
        for route, view in class_views()
        if issubclass(view, MerchantLoginRequiredMixin)
    }


PAGES = dashboard_pages()
