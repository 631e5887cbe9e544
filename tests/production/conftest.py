"""Helpers of the production tests: the request log's records (`request_log`), and
requests sent through Django's ASGI handler (`asgi`, `tap_under_asgi`), as `make serve`
serves them."""

from __future__ import annotations

import logging

import pytest
from asgiref.sync import async_to_sync
from django.test import AsyncClient


class Keep(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture
def request_log():
    """The request log's records; the logger does not propagate, so caplog cannot see it."""
    keep = Keep()
    logger = logging.getLogger("squarescores.requests")
    logger.addHandler(keep)
    yield keep.records
    logger.removeHandler(keep)


def asgi(client: AsyncClient, method: str, path: str, **kwargs):
    """`client.<method>(path, ...)` through the ASGI handler, from a synchronous test."""

    async def sending():
        return await getattr(client, method)(path, **kwargs)

    return async_to_sync(sending)()


def tap_under_asgi(token: str, deal_id: int, player_id: int, key: str):
    """A tap through the API with the token and an Idempotency-Key, under ASGI."""
    return asgi(
        AsyncClient(),
        "post",
        f"/api/deals/{deal_id}/taps/",
        data={"player": player_id},
        content_type="application/json",
        headers={"Authorization": f"Token {token}", "Idempotency-Key": key},
    )
