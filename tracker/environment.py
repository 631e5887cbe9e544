"""Reading settings from environment variables: a malformed value stops start-up with a
message naming the variable, rather than being read as something else."""

from __future__ import annotations

import os

from django.core.exceptions import ImproperlyConfigured

_TRUE = {"true", "1", "yes", "on"}
_FALSE = {"false", "0", "no", "off"}


def env_bool(name: str, default: bool) -> bool:
    """Read a boolean; unset or empty means `default`, anything unrecognised is an error."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    if raw.lower() in _TRUE:
        return True
    if raw.lower() in _FALSE:
        return False
    raise ImproperlyConfigured(
        f"{name}={raw!r} is not a boolean: use true/false, 1/0, yes/no or on/off."
    )


def env_int(name: str, default: int) -> int:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        return int(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={raw!r} is not a whole number.") from None


def env_list(name: str, default: str = "") -> list[str]:
    """Read a comma-separated list; blanks around and between commas are dropped."""
    raw = os.environ.get(name, default)
    return [part.strip() for part in raw.split(",") if part.strip()]
