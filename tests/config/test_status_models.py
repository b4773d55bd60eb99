"""Every model with a status moves it only through the one state machine
(config/models/state_machine.py): each declares its moves, and no code outside
the state machine writes a status."""

import ast
from pathlib import Path

from django.apps import apps
from django.conf import settings

from config.models import StateMachine

STATE_MACHINE_MODULE = "config/models/state_machine.py"


def _project_apps():
    """This project's apps (not Django's or installed packages')."""
    base = str(settings.BASE_DIR)
    return [
        config
        for config in apps.get_app_configs()
        if config.path.startswith(base) and "site-packages" not in config.path
    ]


def _status_models():
    return [
        model
        for config in _project_apps()
        for model in config.get_models()
        if any(field.name == "status" for field in model._meta.concrete_fields)
    ]


def _label(model) -> str:
    return model._meta.label


def _declaration_problems(model) -> list[str]:
    """What is missing from the model's declaration of its moves."""
    if not issubclass(model, StateMachine):
        return ["is not a StateMachine"]
    field = model._meta.get_field("status")
    choices = {value for value, _ in field.choices or ()}
    if not choices:
        return ["has a status without choices"]
    targets = {new for moves in model.TRANSITIONS.values() for new in moves}
    named = set(model.TRANSITIONS) | targets
    # A row starts in the field's default or in a status declared initial.
    reached = {field.default} | set(model.INITIAL) | targets
    fields = {field.name for field in model._meta.concrete_fields}
    problems = [f"no move reaches {status!r}" for status in sorted(choices - reached)]
    problems += [f"moves name {status!r}" for status in sorted(named - choices)]
    problems += [
        f"starts in {status!r}" for status in sorted(set(model.INITIAL) - choices)
    ]
    problems += [
        f"stamps {status!r} into the unknown field {stamp!r}"
        for status, stamp in model.STAMPS.items()
        if status not in choices or stamp not in fields
    ]
    return problems


def test_every_model_with_a_status_declares_its_moves():
    models = _status_models()
    # The listing finds models of every app, payments' included.
    assert {
        "checkout.CheckoutSession",
        "webhooks.Delivery",
        "merchants.Merchant",
        "payments.Payout",
        "payments.SandboxTransaction",
    } <= {_label(model) for model in models}

    problems = {_label(model): _declaration_problems(model) for model in models}

    assert {label: found for label, found in problems.items() if found} == {}


def test_every_model_with_a_status_is_a_state_machine():
    unconverted = {
        _label(model)
        for model in _status_models()
        if not issubclass(model, StateMachine)
    }

    assert unconverted == set()


def _status_writes(source: str, name: str) -> list[str]:
    """`x.status = ...`, `.update(status=...)` and `save(update_fields=[...
    "status" ...])` in one module's source."""
    found = []
    for node in ast.walk(ast.parse(source, name)):
        line = f"{name}:{getattr(node, 'lineno', 0)}"
        if isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(
                isinstance(part, ast.Attribute) and part.attr == "status"
                for target in targets
                for part in ast.walk(target)
            ):
                found.append(f"{line} assigns .status")
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            keywords = {keyword.arg: keyword.value for keyword in node.keywords}
            if node.func.attr in ("update", "bulk_update") and "status" in keywords:
                found.append(f"{line} updates status")
            fields = keywords.get("update_fields")
            if node.func.attr == "save" and fields is not None:
                names = {
                    part.value
                    for part in ast.walk(fields)
                    if isinstance(part, ast.Constant)
                }
                if "status" in names:
                    found.append(f"{line} saves status")
    return found


def test_no_code_outside_the_state_machine_writes_a_status():
    base = Path(settings.BASE_DIR)
    modules = [
        path
        for config in _project_apps()
        for path in Path(config.path).rglob("*.py")
        if "migrations" not in path.parts
    ]
    modules += [path for path in (base / "config").rglob("*.py")]
    writes = []
    for path in sorted(set(modules)):
        relative = path.relative_to(base).as_posix()
        if relative == STATE_MACHINE_MODULE:
            continue
        writes += _status_writes(path.read_text(), relative)

    assert writes == []


def test_the_scan_finds_each_kind_of_status_write():
    source = (
        "plan.status = 'active'\n"
        "Plan.objects.filter(pk=1).update(status='active')\n"
        "plan.save(update_fields=['status', 'updated_at'])\n"
        "plan.save(update_fields=['goods_released_at'])\n"
    )

    assert _status_writes(source, "m.py") == [
        "m.py:1 assigns .status",
        "m.py:2 updates status",
        "m.py:3 saves status",
    ]


def test_a_status_a_row_starts_in_counts_only_when_declared_and_real(monkeypatch):
    from payments.models import ProcessorCharge

    # Written with the processor's outcome: no move reaches either status.
    assert _declaration_problems(ProcessorCharge) == []

    monkeypatch.setattr(ProcessorCharge, "INITIAL", frozenset({"success"}))
    assert _declaration_problems(ProcessorCharge) == ["no move reaches 'failed'"]

    monkeypatch.setattr(ProcessorCharge, "INITIAL", frozenset({"success", "lost"}))
    assert _declaration_problems(ProcessorCharge) == [
        "no move reaches 'failed'",
        "starts in 'lost'",
    ]
