"""Template helpers of the shared dashboard shell (`{% load dashboard %}`)."""

from django import template
from django.utils.html import format_html

register = template.Library()

DASHBOARD_ROOT = "/dashboard/"


@register.simple_tag(takes_context=True)
def nav_link(context, href: str, label: str):
    """A navigation link, marked current on its own page and the pages below it.

    Plain paths rather than `{% url %}`, so the shell links to pages that other apps
    add without importing them.
    """
    path = context["request"].path
    current = path == href or (href != DASHBOARD_ROOT and path.startswith(href))
    if current:
        return format_html(
            '<a href="{}" class="nav-link is-current" aria-current="page">{}</a>',
            href,
            label,
        )
    return format_html('<a href="{}" class="nav-link">{}</a>', href, label)


@register.filter
def release_rule_label(rule: str) -> str:
    """`after_installments:2` -> "after 2 paid installments", for people."""
    if rule == "on_deposit":
        return "when the deposit is paid"
    if rule == "on_completion":
        return "when the plan is fully paid"
    count = rule.partition(":")[2]
    noun = "installment" if count == "1" else "installments"
    return f"after {count} paid {noun}"
