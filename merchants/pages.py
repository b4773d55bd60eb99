"""Public pages of `merchants` (no sign-in): the landing page at `/` and the
merchant guides under /docs/ (`guides.py` renders them from `docs/*.md`)."""

from django.http import Http404, HttpResponsePermanentRedirect
from django.shortcuts import render
from django.templatetags.static import static

from . import guides


def landing(request):
    return render(request, "merchants/landing.html", {"guides": guides.GUIDES})


def guide_index(request):
    return render(request, "merchants/guides.html", {"guides": guides.GUIDES})


def guide_page(request, slug: str):
    guide = guides.guide_of(slug)
    if guide is None:
        raise Http404("No guide has this name.")
    return render(
        request,
        "merchants/guide.html",
        {
            "guides": guides.GUIDES,
            "current": guide,
            "page": guides.guide_render(guide),
        },
    )


def favicon(request):
    return HttpResponsePermanentRedirect(static("img/favicon.svg"))
