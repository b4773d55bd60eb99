"""The baseline app: the product's settings with a single minimal DRF view and no
middleware, so it measures the floor for "authenticate a key, validate, insert"."""

from config.settings import *  # noqa: F403

ROOT_URLCONF = "bench.baseline.urls"
MIDDLEWARE = []
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [],
    "DEFAULT_PERMISSION_CLASSES": [],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["rest_framework.parsers.JSONParser"],
    "UNAUTHENTICATED_USER": None,
}
