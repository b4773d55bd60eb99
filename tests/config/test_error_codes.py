"""The error codes are a closed, documented list (DESIGN section 3)."""

import contextlib
import importlib
import re
from pathlib import Path

from django.apps import apps

from config.api.errors import DomainError

DOC = Path(__file__).resolve().parents[2] / "docs" / "errors.md"


def _all_subclasses(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from _all_subclasses(sub)


def test_every_domain_error_code_is_documented():
    for config in apps.get_app_configs():
        with contextlib.suppress(ModuleNotFoundError):
            importlib.import_module(f"{config.name}.errors")
        # An app of several domains has an errors module per domain subpackage.
        for path in Path(config.path).glob("*/errors.py"):
            importlib.import_module(f"{config.name}.{path.parent.name}.errors")
    documented = set(re.findall(r"^\| `([a-z_]+)` \|", DOC.read_text(), re.M))
    raised = {cls.code for cls in _all_subclasses(DomainError)}

    assert raised - documented == set()
    assert len(raised) > 5
