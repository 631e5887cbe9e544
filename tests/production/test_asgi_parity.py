"""The middleware's order (RequestBodyLimitMiddleware last: one hand-over under ASGI) and
`tracker.records._union`, cached a process, as a reviewer pinned them.

What the move must keep: an oversize body refused with 413 before anything reads it (pages,
API, sign-in, CSRF-protected forms, in the reader's language), logged; axes' lockout; CSRF
failures, 404s and 405s as they were; and the same answers under ASGI as under WSGI,
the live streams included. What the cache must keep: rows read as the ORM reads them,
whatever thread built it and whatever the settings are now.
"""

from __future__ import annotations

import asyncio
import re
import threading

import pytest
from asgiref.sync import async_to_sync
from django.core.handlers.wsgi import LimitedStream
from django.db import connection
from django.test import AsyncClient, Client
from django.urls import reverse

from tests.production.conftest import asgi, tap_under_asgi
from tracker import records
from tracker.models import DealEvent, Tap
from tracker.services import api_token_create, share_link_create

pytestmark = pytest.mark.django_db(transaction=True)

OVER = 70_000  # DATA_UPLOAD_MAX_MEMORY_SIZE is 65536
EN_413 = "The request body is too large: at most 65536 bytes."
VI_413 = "Nội dung yêu cầu quá lớn: tối đa 65536 byte."
LOCKED = "Too many wrong passwords for this account or from this address"


# --- helpers ---------------------------------------------------------------------------


@pytest.fixture
def body_reads(monkeypatch):
    """Every read of a request body (WSGI's LimitedStream) is noted."""
    reads: list[str] = []
    for name in ("read", "readline"):
        original = getattr(LimitedStream, name)

        def noting(self, *args, _original=original, _name=name, **kwargs):
            reads.append(_name)
            return _original(self, *args, **kwargs)

        monkeypatch.setattr(LimitedStream, name, noting)
    return reads


def signed_in(factory, user):
    client = factory()
    client.force_login(user)
    return client


def normal(text: str) -> str:
    """An answer's text without what differs from one request to the next."""
    text = re.sub(r'nonce="[^"]*"', 'nonce=""', text)
    text = re.sub(r'name="csrfmiddlewaretoken" value="[^"]*"', "", text)
    text = re.sub(r"'nonce-[^']*'", "'nonce-'", text)
    text = re.sub(r'data-synced="[^"]*"', 'data-synced=""', text)
    text = re.sub(r'"X-CSRFToken": "[^"]*"', '"X-CSRFToken": ""', text)
    return text


SAME_HEADERS = (
    "Content-Type",
    "Content-Language",
    "X-Frame-Options",
    "Retry-After",
    "Cache-Control",
    "Allow",
    "Location",
)


def assert_same(under_asgi, wsgi, what) -> None:
    import difflib

    a, w = looks(under_asgi), looks(wsgi)
    if a == w:
        return
    lines = "\n".join(
        difflib.unified_diff(w[3].splitlines(), a[3].splitlines(), "wsgi", "asgi", lineterm="", n=0)
    )
    raise AssertionError(f"{what}: wsgi {w[:3]} asgi {a[:3]}\n{lines}")


def looks(response) -> tuple:
    headers = {name: response.get(name) for name in SAME_HEADERS}
    csp = response.get("Content-Security-Policy")
    body = b"" if response.streaming else response.content
    return (
        response.status_code,
        headers,
        normal(csp) if csp else None,
        normal(body.decode("utf-8", "replace")),
    )


# --- 413 before the body is read, under WSGI -------------------------------------------


@pytest.mark.parametrize(
    ("path", "is_api"),
    [
        ("/accounts/login/", False),
        ("/admin/login/", False),
        ("/circles/new/", False),
        ("/no/such/page/", False),
        ("/api/auth/token/", True),
        ("/api/sessions/", True),
        ("/api/no/such/thing/", True),
    ],
)
def test_wsgi_an_oversize_body_is_413_and_never_read(path, is_api, body_reads, request_log):
    client = Client(enforce_csrf_checks=True)  # a CSRF-protected form, no token

    response = client.post(
        path, data=b"", content_type="application/x-www-form-urlencoded", CONTENT_LENGTH="52428800"
    )

    assert response.status_code == 413, response.content[:300]
    assert "Connection" not in response  # a WSGI application may not send it (PEP 3333)
    if is_api:
        assert response.json() == {"detail": EN_413, "code": "body_too_large"}
    else:
        assert response.content.decode() == EN_413
    assert body_reads == []
    assert [record.fields["status"] for record in request_log] == [413]


def test_make_run_s_server_takes_the_413_from_the_wsgi_application():
    """A WSGI server (wsgiref here; Django's runserver, which `make run` once was, is
    built on it) refuses hop-by-hop headers from the application (PEP 3333): a
    `Connection: close` on the 413 was a 500 there."""
    from io import BytesIO
    from wsgiref.util import setup_testing_defaults
    from wsgiref.validate import validator

    from django.core.handlers.wsgi import WSGIHandler

    environ = {
        "REQUEST_METHOD": "POST",
        "PATH_INFO": "/api/auth/token/",
        "QUERY_STRING": "",
        "SCRIPT_NAME": "",
        "CONTENT_TYPE": "application/json",
        "CONTENT_LENGTH": "200000",
        "wsgi.input": BytesIO(b"0" * 200000),
    }
    setup_testing_defaults(environ)
    environ["SERVER_NAME"] = environ["HTTP_HOST"] = "testserver"
    answered = []

    def start_response(status, headers, exc_info=None):
        answered.append((status, headers))
        return lambda data: None

    body = validator(WSGIHandler())(environ, start_response)
    try:
        b"".join(body)
    finally:
        body.close()

    ((status, headers),) = answered
    assert status.startswith("413"), status
    assert "connection" not in {name.lower() for name, _ in headers}


def test_wsgi_an_oversize_sign_in_in_vietnamese(body_reads):
    client = Client(enforce_csrf_checks=True)
    client.cookies["django_language"] = "vi"

    page = client.post(
        "/accounts/login/", data=b"", content_type="text/plain", CONTENT_LENGTH="99999999"
    )
    api = client.post(
        "/api/auth/token/", data=b"", content_type="application/json", CONTENT_LENGTH="99999999"
    )

    assert (page.status_code, page.content.decode()) == (413, VI_413)
    assert (api.status_code, api.json()["detail"]) == (413, VI_413)
    assert body_reads == []


def test_wsgi_a_locked_out_sign_in_is_still_429_and_an_oversize_one_still_413(
    client, user, body_reads
):
    for _ in range(5):
        client.post(
            "/accounts/login/", {"username": "host", "password": "no"}, REMOTE_ADDR="10.0.0.1"
        )
    body_reads.clear()

    big = client.post(
        "/accounts/login/",
        data=b"",
        content_type="text/plain",
        CONTENT_LENGTH="99999999",
        REMOTE_ADDR="10.0.0.1",
    )
    assert big.status_code == 413
    assert body_reads == []

    locked = client.post(
        "/accounts/login/",
        {"username": "host", "password": "table-of-four"},
        REMOTE_ADDR="10.0.0.1",
    )
    assert locked.status_code == 429
    assert LOCKED in locked.text
    assert locked["Retry-After"] == "900"


def test_wsgi_an_oversize_put_patch_delete_on_the_api_is_413(user):
    token = api_token_create(user=user).key
    client = Client(headers={"Authorization": f"Token {token}"})
    for method in ("put", "patch", "delete"):
        response = getattr(client, method)(
            "/api/sessions/1/", data="x" * OVER, content_type="application/json"
        )
        assert response.status_code == 413, (method, response.content[:200])
        assert response.json()["code"] == "body_too_large"


# --- the same answers under ASGI as under WSGI ---------------------------------------


def test_asgi_an_oversize_body_is_413_like_wsgi(user, request_log):
    for path in ("/accounts/login/", "/circles/new/", "/api/auth/token/", "/api/sessions/"):
        wsgi = signed_in(lambda: Client(enforce_csrf_checks=True), user).post(
            path, data="x" * OVER, content_type="application/x-www-form-urlencoded"
        )
        client = AsyncClient(enforce_csrf_checks=True)
        client.force_login(user)
        under_asgi = asgi(
            client, "post", path, data="x" * OVER, content_type="application/x-www-form-urlencoded"
        )
        assert wsgi.status_code == 413
        assert_same(under_asgi, wsgi, path)
    assert [record.fields["status"] for record in request_log] == [413] * 8


def test_asgi_an_oversize_body_in_vietnamese():
    client = AsyncClient()
    client.cookies["django_language"] = "vi"

    page = asgi(client, "post", "/accounts/login/", data="x" * OVER, content_type="text/plain")
    api = asgi(client, "post", "/api/auth/token/", data="x" * OVER, content_type="application/json")

    assert (page.status_code, page.content.decode()) == (413, VI_413)
    assert (api.status_code, api.json()["detail"]) == (413, VI_413)


REFUSALS = [
    ("get", "/no/such/page/", False),
    ("get", "/api/no/such/thing/", False),
    ("get", "/sessions/999999/standings/", False),
    ("post", "live", False),
    ("delete", "/api/auth/token/", False),
    ("post", "tap_player", True),
    ("post", "/accounts/login/", True),
]


@pytest.mark.parametrize(("method", "path", "with_data"), REFUSALS)
def test_asgi_404_405_and_csrf_failure_look_as_under_wsgi(
    user, make_session, method, path, with_data
):
    session, players = make_session()
    if not path.startswith("/"):
        path = reverse(f"member:{path}", kwargs={"session_id": session.pk})
    kwargs = {}
    if with_data:
        kwargs["data"] = {"player": players["Alice"].pk, "username": "host", "password": "x"}
    wsgi_client = Client(enforce_csrf_checks=True)
    wsgi_client.force_login(user)
    asgi_client = AsyncClient(enforce_csrf_checks=True)
    asgi_client.force_login(user)
    wsgi = getattr(wsgi_client, method)(path, **kwargs)
    under_asgi = asgi(asgi_client, method, path, **kwargs)
    assert_same(under_asgi, wsgi, (method, path))


def test_asgi_csrf_failure_is_the_project_s_sentence(user, make_session):
    session, players = make_session()
    client = AsyncClient(enforce_csrf_checks=True)
    client.force_login(user)

    response = asgi(
        client,
        "post",
        reverse("member:tap_player", kwargs={"session_id": session.pk}),
        data={"player": players["Alice"].pk},
    )

    assert response.status_code == 403
    assert "This page was open too long" in response.content.decode()
    assert not Tap.objects.exists()


def test_asgi_a_locked_out_sign_in_gets_its_lockout_answer(user):
    client = AsyncClient()
    for _ in range(5):
        asgi(client, "post", "/accounts/login/", data={"username": "host", "password": "no"})

    page = asgi(
        client, "post", "/accounts/login/", data={"username": "host", "password": "table-of-four"}
    )
    api = asgi(
        AsyncClient(),
        "post",
        "/api/auth/token/",
        data={"username": "host", "password": "table-of-four"},
        content_type="application/json",
    )

    assert page.status_code == 429, page.content[:300]
    assert LOCKED in page.content.decode()
    assert page["Retry-After"] == "900"
    assert api.status_code == 429
    assert api.json()["code"] == "locked_out"


def test_asgi_pages_and_api_writes_answer_as_under_wsgi(user, make_session):
    session, players = make_session()
    token = api_token_create(user=user).key
    deal = session.deals.get()
    for path in (
        f"/sessions/{session.pk}/standings/",
        "/",
        "/healthz",
        f"/api/sessions/{session.pk}/",
    ):
        wsgi = signed_in(Client, user).get(path)
        under_asgi = asgi(signed_in(AsyncClient, user), "get", path)
        assert_same(under_asgi, wsgi, path)

    tapped = tap_under_asgi(token, deal.pk, players["Alice"].pk, "r6-1")
    again = tap_under_asgi(token, deal.pk, players["Alice"].pk, "r6-1")
    assert tapped.status_code == 201, tapped.content
    assert (again.status_code, again.json()) == (201, tapped.json())
    assert Tap.objects.count() == 1


# --- the live stream under ASGI ------------------------------------------------------


def first_asgi_event(client: AsyncClient, path: str):
    async def reading():
        response = await client.get(path)
        if not response.streaming:
            return response, None
        stream = response.streaming_content
        try:
            first = await asyncio.wait_for(anext(aiter(stream)), timeout=10)
        finally:
            # Each read of `streaming_content` wraps the view's generator anew: close the
            # generator itself, or the loop's shutdown finalizes it and hub.watching apart.
            await response._iterator.aclose()
            response.close()
        return response, first.decode()

    return async_to_sync(reading)()


def test_asgi_the_live_stream_for_a_member_and_a_link(user, make_session, actor):
    session, _ = make_session()
    link = share_link_create(session_id=session.pk, role="viewer", actor=actor)
    session.refresh_from_db()

    member, said = first_asgi_event(
        signed_in(AsyncClient, user), reverse("member:live", kwargs={"session_id": session.pk})
    )
    assert member.status_code == 200
    assert member["Content-Type"] == "text/event-stream"
    assert member["Cache-Control"] == "no-store"
    assert said == f"retry: 1500\ndata: {session.version}\n\n"

    by_link, said = first_asgi_event(
        AsyncClient(), reverse("link:live", kwargs={"token": link.token})
    )
    assert by_link.status_code == 200
    assert said == f"retry: 1500\ndata: {session.version}\n\n"


def test_asgi_the_live_stream_refusals_as_under_wsgi(user, make_session, actor, django_user_model):
    session, _ = make_session()
    outsider = django_user_model.objects.create_user(username="outsider", password="x-x-x-x-1")
    member_url = reverse("member:live", kwargs={"session_id": session.pk})
    for make, path in (
        (lambda f: signed_in(f, outsider), member_url),
        (lambda f: f(), member_url),
        (lambda f: f(), "/s/nonsense/live/"),
    ):
        wsgi = make(Client).get(path)
        under_asgi, _ = first_asgi_event(make(AsyncClient), path)
        assert_same(under_asgi, wsgi, path)


# --- the records statement, cached a process ------------------------------------------


def orm_values(deal_id):
    values = {}
    for model in (Tap, DealEvent):
        for row in model.objects.filter(deal_id=deal_id):
            values[(model.__name__, row.pk)] = {
                f.attname: getattr(row, f.attname) for f in model._meta.concrete_fields
            }
    return values


def records_values(deal_id):
    rows, _, _ = records._all_records(deal_id)
    return {
        (type(row).__name__, row.pk): {
            f.attname: getattr(row, f.attname) for f in type(row)._meta.concrete_fields
        }
        for row in rows
    }


def build_in_a_thread():
    def build():
        try:
            records._union(connection.vendor)
        finally:
            connection.close()

    thread = threading.Thread(target=build)
    thread.start()
    thread.join(30)


@pytest.mark.parametrize("built_with_tz", [True, False])
@pytest.mark.parametrize("read_with_tz", [True, False])
def test_records_read_as_the_orm_whatever_settings_and_thread_built_the_cache(
    settings, make_session, actor, built_with_tz, read_with_tz
):
    from tests.views.helpers import open_deal, play_deals

    session, players = make_session()
    play_deals(session, players, 2, actor)
    deal_ids = list(session.deals.values_list("pk", flat=True))
    assert Tap.objects.exists()

    records._union.cache_clear()
    settings.USE_TZ = built_with_tz
    settings.TIME_ZONE = "Asia/Ho_Chi_Minh"
    build_in_a_thread()
    settings.USE_TZ = read_with_tz
    settings.TIME_ZONE = "America/New_York"
    try:
        for deal_id in deal_ids:
            assert records_values(deal_id) == orm_values(deal_id)
        assert open_deal(session)
    finally:
        records._union.cache_clear()


def test_the_cache_is_kept_by_vendor_and_read_through_today_s_connection(make_session, actor):
    from tests.views.helpers import play_deals

    session, players = make_session()
    play_deals(session, players, 1, actor)
    deal_id = session.deals.order_by("pk").first().pk

    records._union.cache_clear()
    build_in_a_thread()
    try:
        assert records._union.cache_info().currsize == 1
        assert records_values(deal_id) == orm_values(deal_id)
        sql, loads = records._union(connection.vendor)
        assert len(loads) == 2
        assert records._union.cache_info().hits >= 1
    finally:
        records._union.cache_clear()
