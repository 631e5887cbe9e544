"""Logging helpers (see LOGGING in settings): JSON lines, and share link tokens kept out.

Loaded while settings are configured, so nothing here imports Django.
"""

import json
import logging
from datetime import UTC, datetime
from typing import Any


class JsonLinesFormatter(logging.Formatter):
    """One JSON object per record: time, level, logger, message, then the record's `fields`
    (passed as `extra={"fields": {...}}`)."""

    def format(self, record: logging.LogRecord) -> str:
        line = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            **getattr(record, "fields", {}),
        }
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        return json.dumps(line, default=str, ensure_ascii=False)


def hide_share_token(text: str, request: Any) -> str:
    """`text` with the request's share link token (the `token` URL argument of /s/<token>/)
    replaced: a token is a password, and paths end up in logs."""
    match = getattr(request, "resolver_match", None)
    token = match.kwargs.get("token") if match is not None else None
    return text.replace(str(token), "<token>") if token else text


class HideShareTokens(logging.Filter):
    """Hide share link tokens in records that carry their request, such as Django's
    "Not Found: /s/<token>/" and "Forbidden: ..." lines."""

    def filter(self, record: logging.LogRecord) -> bool:
        request = getattr(record, "request", None)
        if request is not None and isinstance(record.args, tuple):
            record.args = tuple(
                hide_share_token(arg, request) if isinstance(arg, str) else arg
                for arg in record.args
            )
        return True
