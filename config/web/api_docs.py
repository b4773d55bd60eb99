"""The two pages of the API reference (Swagger UI, ReDoc), which read the schema
endpoint (`config.api.views.ApiSchemaView`). HTML pages under a policy of their
own from `security_headers`, so they live with the web plumbing: `config.web`
may import `config.api`, never the reverse (tests/config/test_import_direction.py).

The pages load only this service's own files (the drf-spectacular-sidecar copies
of Swagger UI and ReDoc, plus static/js/api-docs.js): no CDN, no inline script, so
they run under a Content-Security-Policy of their own, and nothing reaches
another site:
- ReDoc's bundle hard-codes its maker's logo on a CDN (the "API docs by Redocly"
  line under the menu), so the page loads the bundle from `redoc_bundle`, which
  serves the sidecar's file with that address pointing to a picture of ours;
- Swagger UI shows a badge from validator.swagger.io on any page not served from
  localhost unless `validatorUrl` is null (SPECTACULAR_SETTINGS).
"""

import hashlib
from functools import cache
from pathlib import Path

from django.contrib.staticfiles import finders
from django.http import HttpResponse
from django.templatetags.static import static
from django.urls import reverse
from drf_spectacular.views import SpectacularRedocView, SpectacularSwaggerSplitView

from .security_headers import CSP_HEADER, policy

# Both UIs render with inline styles (React and styled-components), and ReDoc
# runs its search index in a blob: worker; scripts stay 'self' only.
DOCS_POLICY = policy(
    style_src=("'self'", "'unsafe-inline'"),
    img_src=("'self'", "data:"),
    worker_src=("'self'", "blob:"),
)


class _DocsPage:
    authentication_classes = []
    throttle_classes = []

    def finalize_response(self, request, response, *args, **kwargs):
        response = super().finalize_response(request, response, *args, **kwargs)
        response[CSP_HEADER] = DOCS_POLICY
        return response


class ApiDocsView(_DocsPage, SpectacularSwaggerSplitView):
    """`GET /api/docs/`: Swagger UI; its start-up script is served by the same view
    (`?script=`), not inlined."""

    template_name = "drf_spectacular/swagger_ui.html"


class ApiRedocView(_DocsPage, SpectacularRedocView):
    """`GET /api/redoc/`: ReDoc, started by static/js/api-docs.js."""

    template_name = "drf_spectacular/redoc.html"

    @staticmethod
    def _redoc_standalone():
        # The version in the address lets browsers keep the bundle for a year.
        return f"{reverse('api-redoc-bundle')}?v={_redoc_bundle()[1]}"


REDOC_BUNDLE = "drf_spectacular_sidecar/redoc/bundles/redoc.standalone.js"
REDOC_LOGO = "https://cdn.redoc.ly/redoc/logo-mini.svg"


@cache
def _redoc_bundle() -> tuple[bytes, str]:
    """The sidecar's ReDoc bundle with its logo (and its source map) served from
    here, and its version."""
    text = Path(finders.find(REDOC_BUNDLE)).read_text(encoding="utf-8")
    text = text.replace(REDOC_LOGO, static("img/redoc-logo.svg"))
    text = text.replace(
        "sourceMappingURL=redoc.standalone.js.map",
        f"sourceMappingURL={static(REDOC_BUNDLE)}.map",
    )
    body = text.encode()
    return body, hashlib.sha256(body).hexdigest()[:16]


def redoc_bundle(request):
    """`GET /api/redoc/redoc.standalone.js`."""
    body, version = _redoc_bundle()
    response = HttpResponse(body, content_type="text/javascript; charset=utf-8")
    fresh = request.GET.get("v") == version
    response["Cache-Control"] = (
        "public, max-age=31536000, immutable" if fresh else "public, max-age=300"
    )
    return response
