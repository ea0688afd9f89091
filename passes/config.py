"""Typed `PassContext.config` keys (TVM's `TVM_REGISTER_PASS_CONFIG_OPTION`).

Every key is declared once, by the module that reads it, with `register_config`
(type, default, help), named `<pass-name>.<option>`; an unknown key or a value of
the wrong type is a `LaminaError`.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TypeAlias

from lamina.errors import LaminaError

ConfigValue: TypeAlias = int | float | bool | str


@dataclass(frozen=True)
class ConfigOption:
    """A typed `PassContext.config` key: `fuse-ops.max-depth: int = 256`."""

    key: str
    type: type
    default: ConfigValue
    help: str

    def check(self, value: object) -> ConfigValue:
        """`value` if it has this option's type (an int is a float), else a
        LaminaError that says what was expected."""
        ok = (
            isinstance(value, bool)
            if self.type is bool
            else isinstance(value, int | float) and not isinstance(value, bool)
            if self.type is float
            else isinstance(value, self.type) and not isinstance(value, bool)
        )
        if not ok:
            raise LaminaError(
                f"pass config '{self.key}' expects {self.type.__name__}, got "
                f"{type(value).__name__} {value!r} ({self.help})"
            )
        return float(value) if self.type is float else value  # type: ignore[arg-type]

    def parse(self, text: str) -> ConfigValue:
        """The value of `text` (as written on a command line) for this option."""
        try:
            if self.type is bool:
                lowered = text.strip().lower()
                if lowered not in ("true", "false", "1", "0"):
                    raise ValueError(text)
                return lowered in ("true", "1")
            return self.check(self.type(text))
        except ValueError:
            raise LaminaError(
                f"pass config '{self.key}' expects {self.type.__name__}, got {text!r}"
            ) from None


_CONFIG: dict[str, ConfigOption] = {}


def register_config(
    key: str, type_: type, default: ConfigValue, help: str
) -> ConfigOption:
    """Declare a `PassContext.config` key (TVM's `TVM_REGISTER_PASS_CONFIG_OPTION`).
    Passes declare theirs at import time, named `<pass-name>.<option>`."""
    if type_ not in (int, float, bool, str):
        raise LaminaError(f"pass config '{key}': type must be int, float, bool or str")
    option = ConfigOption(key, type_, default, help)
    option.check(default)
    existing = _CONFIG.get(key)
    if existing is not None and existing != option:
        raise LaminaError(f"pass config '{key}' is already declared as {existing}")
    _CONFIG[key] = option
    return option


def config_options() -> Mapping[str, ConfigOption]:
    """Every declared config key."""
    return MappingProxyType(_CONFIG)


def config_option(key: str) -> ConfigOption:
    """The declared option `key`; an unknown key is a LaminaError listing the
    known ones."""
    option = _CONFIG.get(key)
    if option is None:
        close = difflib.get_close_matches(key, _CONFIG, n=1)
        hint = f"; did you mean '{close[0]}'?" if close else ""
        raise LaminaError(
            f"unknown pass config '{key}'{hint} Known keys: "
            + ", ".join(sorted(_CONFIG))
        )
    return option


__all__ = ["ConfigOption", "ConfigValue", "config_option", "config_options", "register_config"]
