"""Click options made from a pydantic parameter model, so commands stay generic over methods.

Each field becomes an option: ``max_ka2: int = Field(2, description=...)`` → ``--max-ka2 INTEGER``
with that default and help. ``bool`` fields become ``--x/--no-x``; ``Literal`` fields a choice;
tuples a repeatable option (``multiple``) or one comma-separated value (``separator``). A field's
``json_schema_extra={"cli": {"flags": [...], "multiple": True, "separator": ",", "hidden": True}}``
adjusts its option. Validation stays in the model: a bad value gives pydantic's message,
turned into a clean CLI error.
"""

from __future__ import annotations

import types
from collections.abc import Iterable
from typing import Any, Literal, Union, get_args, get_origin

import click
from pydantic import BaseModel, ValidationError
from pydantic.fields import FieldInfo

from knowforge.errors import ConfigError

_SCALARS = {int: click.INT, float: click.FLOAT, str: click.STRING}


def _cli(field: FieldInfo) -> dict[str, Any]:
    extra = field.json_schema_extra if isinstance(field.json_schema_extra, dict) else {}
    return dict(extra.get("cli", {}))


def _strip_optional(annotation: Any) -> Any:
    if get_origin(annotation) in (Union, types.UnionType):
        args = [a for a in get_args(annotation) if a is not type(None)]
        if len(args) == 1:
            return args[0]
    return annotation


def _param_name(name: str) -> str:
    return f"p_{name}"


def options_for(model: type[BaseModel], *, skip: Iterable[str] = ()) -> list[click.Option]:
    """The click options of ``model``'s fields (in declaration order), minus ``skip``."""
    options = []
    for name, field in model.model_fields.items():
        cli = _cli(field)
        if name in skip or cli.get("hidden"):
            continue
        annotation = _strip_optional(field.annotation)
        flags = list(cli.get("flags") or [f"--{name.replace('_', '-')}"])
        default = None if field.is_required() else field.get_default(call_default_factory=True)
        help_text = field.description or ""
        kwargs: dict[str, Any] = {"help": help_text, "show_default": default is not None and default != ()}
        if annotation is bool:
            first = flags[0].lstrip("-")
            flags = [f"--{first}/--no-{first}", *flags[1:]]
            kwargs.update(default=bool(default))
            kwargs["show_default"] = True
        elif get_origin(annotation) is Literal:
            kwargs.update(type=click.Choice([str(a) for a in get_args(annotation)]), default=default)
        elif get_origin(annotation) is tuple:
            if cli.get("multiple"):
                kwargs.update(multiple=True, default=tuple(default or ()))
                kwargs["show_default"] = False
            else:
                sep = cli.get("separator", ",")
                kwargs.update(default=sep.join(default) if default else None,
                              help=f"{help_text} Comma-separated.".strip())
        elif annotation in _SCALARS:
            kwargs.update(type=_SCALARS[annotation], default=default)
        else:
            kwargs.update(default=default)
        if field.is_required():
            kwargs["required"] = True
        options.append(click.Option([*flags, _param_name(name)], **kwargs))
    return options


def values_from(model: type[BaseModel], kwargs: dict[str, Any], *, skip: Iterable[str] = ()) -> dict[str, Any]:
    """The model's field values out of click's ``kwargs`` (only fields given an option)."""
    values: dict[str, Any] = {}
    for name, field in model.model_fields.items():
        key = _param_name(name)
        if name in skip or key not in kwargs:
            continue
        value = kwargs[key]
        annotation = _strip_optional(field.annotation)
        if get_origin(annotation) is tuple:
            if isinstance(value, str):
                sep = _cli(field).get("separator", ",")
                value = tuple(v.strip() for v in value.split(sep) if v.strip())
            elif isinstance(value, (list, tuple)):
                value = tuple(value)
            if value == () and field.get_default() is None:
                value = None
        values[name] = value
    return values


def build_params(model: type[BaseModel], values: dict[str, Any]) -> BaseModel:
    """``model(**values)`` with pydantic's complaints as one ``ConfigError``."""
    try:
        return model(**values)
    except ValidationError as exc:
        problems = "; ".join(
            f"--{str(e['loc'][0]).replace('_', '-')}: {e['msg']}" if e["loc"] else e["msg"] for e in exc.errors())
        raise ConfigError(problems) from exc
