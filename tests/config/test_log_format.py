"""LOG_FORMAT: plain text lines by default, one JSON object per line with `json`
(tests/config/test_gunicorn.py runs the service that way), anything else refused
at start."""

import json

from .production import manage

LOG_A_LINE = "import logging; logging.getLogger('shop').warning('stock low')"


def test_lines_are_plain_text_by_default():
    result = manage("shell", "-c", LOG_A_LINE)

    assert result.returncode == 0, result.stderr
    assert "WARNING [-] shop: stock low" in result.stderr


def test_json_lines_outside_a_request_carry_the_empty_request_id():
    result = manage("shell", "-c", LOG_A_LINE, LOG_FORMAT="json")

    assert result.returncode == 0, result.stderr
    [line] = [json.loads(line) for line in result.stderr.splitlines() if line]
    assert line == {
        "level": "WARNING",
        "logger": "shop",
        "message": "stock low",
        "request_id": "-",
        "timestamp": line["timestamp"],
    }
    assert line["timestamp"].endswith("+00:00")


def test_an_unknown_log_format_stops_the_service_at_start():
    result = manage("check", LOG_FORMAT="xml")

    assert result.returncode != 0
    assert "LOG_FORMAT must be 'plain' or 'json'" in result.stderr
