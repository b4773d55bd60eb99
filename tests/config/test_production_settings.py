"""The production posture: `check --deploy` is clean under the settings production
runs with (docs/operations.md, "Production settings"), and what it relies on."""

import json

from .production import manage


def test_check_deploy_prints_no_warnings_under_production_settings():
    result = manage("check", "--deploy", "--fail-level", "WARNING")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues (0 silenced)." in result.stdout
    assert "WARNING" not in result.stdout + result.stderr


def test_production_settings_pin_https_cookies_hashing_and_jwt():
    script = (
        "import json; from django.conf import settings as s; print(json.dumps({"
        "'hsts': s.SECURE_HSTS_SECONDS, 'subdomains': s.SECURE_HSTS_INCLUDE_SUBDOMAINS,"
        "'redirect': s.SECURE_SSL_REDIRECT, 'proxy': list(s.SECURE_PROXY_SSL_HEADER),"
        "'session_secure': s.SESSION_COOKIE_SECURE,"
        "'session_httponly': s.SESSION_COOKIE_HTTPONLY,"
        "'csrf_secure': s.CSRF_COOKIE_SECURE, 'nosniff': s.SECURE_CONTENT_TYPE_NOSNIFF,"
        "'xfo': s.X_FRAME_OPTIONS, 'hasher': s.PASSWORD_HASHERS[0],"
        "'jwt': s.SIMPLE_JWT['ALGORITHM'], 'debug': s.DEBUG}))"
    )
    result = manage("shell", "-c", script)
    assert result.returncode == 0, result.stderr
    values = json.loads(result.stdout.strip().splitlines()[-1])
    assert values == {
        "hsts": 31536000,
        "subdomains": True,
        "redirect": True,
        "proxy": ["HTTP_X_FORWARDED_PROTO", "https"],
        "session_secure": True,
        "session_httponly": True,
        "csrf_secure": True,
        "nosniff": True,
        "xfo": "DENY",
        "hasher": "django.contrib.auth.hashers.PBKDF2PasswordHasher",
        "jwt": "HS256",
        "debug": False,
    }


def test_production_refuses_to_start_without_a_secret_key():
    result = manage("check", SECRET_KEY="")
    assert result.returncode != 0
    assert "SECRET_KEY must be set" in result.stderr


def test_production_redirects_plain_http_and_trusts_the_proxy_header():
    script = (
        "import json; from django.test import Client; c = Client();"
        "plain = c.get('/api/v1/schema/', HTTP_HOST='pay.example.com');"
        "tls = c.get('/api/v1/schema/', HTTP_HOST='pay.example.com',"
        " HTTP_X_FORWARDED_PROTO='https');"
        "print(json.dumps([plain.status_code, plain.get('Location'), tls.status_code,"
        " tls.get('Strict-Transport-Security'), tls.get('X-Content-Type-Options')]))"
    )
    result = manage("shell", "-c", script)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout.strip().splitlines()[-1]) == [
        301,
        "https://pay.example.com/api/v1/schema/",
        200,
        "max-age=31536000; includeSubDomains; preload",
        "nosniff",
    ]


def test_development_and_tests_speak_plain_http(api):
    # HTTPS is off unless DEBUG is false and BASE_URL is https (or HTTPS=true).
    response = api.get("/api/v1/schema/")
    assert response.status_code == 200
    assert "Strict-Transport-Security" not in response
