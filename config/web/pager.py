"""The dashboards' lists, a page at a time (`templates/dashboard/_pager.html`
shows the links between pages)."""

from django.core.paginator import Page, Paginator


def page_of(request, rows, size: int, param: str = "page") -> Page:
    """The page of `rows` that `?<param>=` asks for, `size` rows a page (a number
    that is not one, or out of range, gets the first or the last page)."""
    return Paginator(rows, size).get_page(request.GET.get(param))


def query_without(request, param: str = "page") -> str:
    """The request's query string without `param`: what the pager's links keep
    (the list's filters)."""
    query = request.GET.copy()
    query.pop(param, None)
    return query.urlencode()
