"""The gunicorn worker `make serve` runs (gunicorn.conf.py): uvicorn's, serving the ASGI
application, with uvloop and httptools where installed.

Django has no ASGI lifespan events, so the worker does not ask for them (uvicorn would
log that the application does not support them at every start)."""

from __future__ import annotations

from typing import Any, ClassVar

from uvicorn_worker import UvicornWorker


class Worker(UvicornWorker):  # type: ignore[misc]  # uvicorn-worker has no type hints
    CONFIG_KWARGS: ClassVar[dict[str, Any]] = {
        **UvicornWorker.CONFIG_KWARGS,
        "lifespan": "off",
    }
