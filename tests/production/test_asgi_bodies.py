"""Under ASGI (`make serve`, `tracker.asgi.application`), a body over the limit is refused
before it is taken in, and an error page leaves no database connection open.

Django's ASGI handler receives a request's whole body before any middleware runs, so the
413 of `RequestBodyLimitMiddleware` came only after a 2.5 MB sign-in had been written to
a temporary file (`tracker.asgi.BodyLimit` now stops that). Found by a reviewer's tests.
"""

from __future__ import annotations

import asyncio

import pytest
from asgiref.sync import async_to_sync
from django.db import connection
from django.test import AsyncClient

from tests.production.conftest import asgi, http_scope
from tracker.asgi import application

pytestmark = pytest.mark.django_db(transaction=True)

PIECE = 65536


def sign_in_of(pieces: int, *, declared: bool, vietnamese: bool = False) -> dict:
    """What the client sent and what it was answered: a sign-in of `pieces` pieces of 64
    KB, its length declared or sent chunked (no length)."""
    state: dict = {"received": 0, "at_answer": None, "status": None, "body": b"", "headers": {}}

    async def receive():
        if state["received"] < pieces:
            state["received"] += 1
            return {
                "type": "http.request",
                "body": b"x" * PIECE,
                "more_body": state["received"] < pieces,
            }
        await asyncio.Event().wait()  # the client waits for its answer

    async def send(message):
        if message["type"] == "http.response.start":
            state["at_answer"] = state["received"]
            state["status"] = message["status"]
            state["headers"] = {k.decode().lower(): v.decode() for k, v in message["headers"]}
        elif message["type"] == "http.response.body":
            state["body"] += message.get("body", b"")

    headers = [
        (b"host", b"testserver"),
        (b"content-type", b"application/x-www-form-urlencoded"),
    ]
    if declared:
        headers.append((b"content-length", str(pieces * PIECE).encode()))
    if vietnamese:
        headers.append((b"cookie", b"django_language=vi"))
    async_to_sync(application)(http_scope("POST", "/accounts/login/", headers), receive, send)
    return state


def test_a_body_declared_too_large_is_refused_before_a_byte_of_it_is_taken():
    state = sign_in_of(40, declared=True)

    assert state["status"] == 413
    assert state["at_answer"] == 0, f"{state['at_answer']} pieces taken before the 413"
    assert state["body"].decode() == "The request body is too large: at most 65536 bytes."
    assert state["headers"]["connection"] == "close"


def test_the_refusal_is_in_the_reader_s_language():
    state = sign_in_of(40, declared=True, vietnamese=True)

    assert state["status"] == 413
    assert state["body"].decode() == "Nội dung yêu cầu quá lớn: tối đa 65536 byte."


def test_a_chunked_body_is_taken_no_further_than_the_limit():
    state = sign_in_of(40, declared=False)

    assert state["status"] == 413
    assert state["at_answer"] == 2, f"{state['at_answer']} pieces taken before the 413"
    assert state["headers"]["connection"] == "close"


def test_a_chunked_body_s_refusal_is_in_the_reader_s_language_and_logged(request_log):
    """Django gives such a request up before its middleware runs: the 413 is answered and
    logged outside it, as the middleware would."""
    state = sign_in_of(40, declared=False, vietnamese=True)

    assert state["status"] == 413
    assert state["body"].decode() == "Nội dung yêu cầu quá lớn: tối đa 65536 byte."
    [line] = [record.fields for record in request_log]
    assert line["method"] == "POST"
    assert line["path"] == "/accounts/login/"
    assert line["status"] == 413
    assert line["remote_addr"] == "10.0.0.1"
    assert line["user"] is None


def test_a_body_within_the_limit_reaches_the_view():
    state = sign_in_of(1, declared=True)

    assert state["status"] == 403  # as far as the CSRF check: the form had no token
    assert state["at_answer"] == 1


def open_connections() -> int:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
            "AND pid <> pg_backend_pid()"
        )
        return cursor.fetchone()[0]


@pytest.mark.postgres
def test_a_signed_in_404_leaves_no_database_connection_open(user):
    """Django draws the answer to an exception (a URL that matches nothing) in a thread of
    the loop's pool, not the request's; the page reads the user there."""
    client = AsyncClient()
    client.force_login(user)

    before = open_connections()
    try:
        for _ in range(3):
            assert asgi(client, "get", "/no/such/page/").status_code == 404
        assert open_connections() == before
    finally:  # a connection left open would keep the test database from being dropped
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )
