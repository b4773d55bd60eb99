"""Page modules are named by who they serve, the same in every app
(docs/architecture.md): merchant dashboard pages in `<app>/dashboard/views.py`,
customer pages in `<app>/account/views.py` (a feature's pages of either site
beside them, in a module named for the feature: `installments/account/early.py`),
the pages of a pay link in `installments/pay/` (`pages.py`, paying from them in
`paying.py`), public pages in a `pages.py`; and each renders the templates of
its own folder: `templates/<app>/dashboard/`, `templates/<app>/account/`,
`templates/<app>/pay/`, or `templates/<app>/` outside those.

A module renders pages when it imports Django's template responses, `render`,
the template loader or its class-based views; the URL modules that route a
`TemplateView` and the admin's own pages are the other modules allowed to. The
walk reads the apps with `ast` (nothing is imported), migrations left out.
"""

import ast
from pathlib import Path

from .source_trees import write_files

ROOT = Path(__file__).resolve().parents[2]
APPS = ["checkout", "installments", "payments", "webhooks", "merchants"]

RENDERING_MODULES = (
    "django.template.response",
    "django.template.loader",
    "django.views",
)
RENDERING_NAMES = {("django.shortcuts", "render")}
PAGE_MODULES = {"pages.py"}
# Who the pages serve: merchants, signed-in customers, and whoever holds a pay
# link (installments/pay/: the pay page and paying from it, no sign-in).
SITE_PACKAGES = ("dashboard", "account", "pay")
ALSO_RENDERING = {"urls.py", "page_urls.py", "admin.py"}


def _renders(tree: ast.AST) -> bool:
    return any(
        node.module.startswith(RENDERING_MODULES)
        or any((node.module, alias.name) in RENDERING_NAMES for alias in node.names)
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module
    )


def _templates(tree: ast.AST) -> list[tuple[int, str]]:
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and node.value.endswith(".html")
    ]


def _site(parts: tuple[str, ...]) -> str | None:
    """The site a module's pages belong to: "dashboard", "account" or None."""
    return next((part for part in parts[1:-1] if part in SITE_PACKAGES), None)


def page_problems(root: Path, apps: list[str]) -> list[str]:
    problems = []
    for app in apps:
        for path in sorted((root / app).rglob("*.py")):
            parts = path.relative_to(root).parts
            if "migrations" in parts:
                continue
            name = "/".join(parts)
            tree = ast.parse(path.read_text(), filename=str(path))
            site = _site(parts)
            is_page_module = path.name in PAGE_MODULES or site is not None
            if (
                _renders(tree)
                and not is_page_module
                and path.name not in ALSO_RENDERING
            ):
                problems.append(
                    f"{name} renders pages: they go in <app>/dashboard/views.py "
                    "(merchants), <app>/account/views.py (customers) or pages.py "
                    "(public)"
                )
            folder = f"{app}/{site}/" if site else f"{app}/"
            for line, template in _templates(tree):
                misplaced = not template.startswith(folder) or (
                    site is None
                    and any(
                        template.startswith(f"{app}/{other}/")
                        for other in SITE_PACKAGES
                    )
                )
                if misplaced and path.name != "admin.py":
                    problems.append(
                        f"{name}:{line} renders {template}: its templates are "
                        f"in templates/{folder}"
                        + ("" if site else " (outside dashboard/ and account/)")
                    )
    return problems


# --- the project ------------------------------------------------------------------


def test_every_page_module_is_named_by_who_it_serves_and_uses_its_templates():
    assert page_problems(ROOT, APPS) == []


def test_the_walk_sees_the_page_modules_of_every_site():
    pages = {
        "/".join(path.relative_to(ROOT).parts)
        for app in APPS
        for path in (ROOT / app).rglob("*.py")
        if _renders(ast.parse(path.read_text()))
    }

    assert {
        "checkout/pages.py",
        "installments/account/views.py",
        "merchants/dashboard/views.py",
        "payments/gateway/pages.py",
    } <= pages


# --- the check itself fails where it must ----------------------------------------


RESPONSE = "from django.template.response import TemplateResponse\n"


def test_pages_under_another_name_or_with_anothers_templates_are_reported(tmp_path):
    write_files(
        tmp_path,
        {
            "shop/dashboard/views.py": RESPONSE + 'T = "shop/dashboard/list.html"\n',
            "shop/account/views.py": RESPONSE + 'T = "shop/dashboard/list.html"\n',
            "shop/account/early.py": RESPONSE + 'T = "shop/account/pay.html"\n',
            "shop/dashboard/refunds.py": RESPONSE + 'T = "shop/account/plan.html"\n',
            "shop/pages.py": RESPONSE
            + 'A = "shop/public.html"\nB = "shop/account/plan.html"\n',
            "shop/sub/pages.py": RESPONSE + 'T = "shop/sub/sandbox.html"\n',
            "shop/dashboard_views.py": "from django.views import View\n",
            "shop/views.py": "from django.shortcuts import redirect, render\n",
            "shop/forms.py": "from django.shortcuts import redirect\n",
            "shop/page_urls.py": "from django.views.generic import TemplateView\n"
            'T = "shop/done.html"\n',
            "shop/admin.py": RESPONSE + 'T = "admin/shop/confirm.html"\n',
            "shop/migrations/0001_initial.py": RESPONSE,
        },
    )

    assert page_problems(tmp_path, ["shop"]) == [
        "shop/account/views.py:2 renders shop/dashboard/list.html: its templates "
        "are in templates/shop/account/",
        "shop/dashboard/refunds.py:2 renders shop/account/plan.html: its templates "
        "are in templates/shop/dashboard/",
        "shop/dashboard_views.py renders pages: they go in <app>/dashboard/views.py "
        "(merchants), <app>/account/views.py (customers) or pages.py (public)",
        "shop/pages.py:3 renders shop/account/plan.html: its templates are in "
        "templates/shop/ (outside dashboard/ and account/)",
        "shop/views.py renders pages: they go in <app>/dashboard/views.py "
        "(merchants), <app>/account/views.py (customers) or pages.py (public)",
    ]
