"""Live streams as `make serve` serves them: gunicorn with uvicorn's workers on PostgreSQL,
taps committed in another process, and every watching phone told by the database's NOTIFY,
without asking."""

from __future__ import annotations

import contextlib
import re
import socket
import threading
import time
from urllib.parse import quote

import httpx
import pytest
from django.conf import settings
from django.db import connection
from django.test import Client

from tests.production.test_serve import gunicorn, on_postgres, production_env
from tracker.services import deal_tap, member_remove, share_link_create, share_link_revoke

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(not on_postgres(), reason="NOTIFY is PostgreSQL's"),
]


def database_url_of_the_tests() -> str:
    """The URL of the database this test writes to (the test database, not the base)."""
    params = connection.settings_dict
    return (
        f"postgres://{params['USER']}@{params['HOST'] or '127.0.0.1'}:{params['PORT'] or 5432}"
        f"/{params['NAME']}"
    )


def serve(tmp_path, **env: str):
    """`make serve` on two workers, on the tests' database."""
    return gunicorn(
        production_env(
            DATABASE_URL=database_url_of_the_tests(),
            BEHIND_PROXY="true",
            WEB_CONCURRENCY="2",
            **env,
        ),
        tmp_path,
    )


def listening(phones: list) -> None:
    """Start every phone and wait until each heard its first event."""
    for phone in phones:
        phone.start()
    for phone in phones:
        assert phone.opened.wait(10), "no first event"


class Watcher(threading.Thread):
    """A phone with the standings open: reads the stream's events as they come."""

    def __init__(self, url: str) -> None:
        super().__init__(daemon=True)
        self.url = url
        self.events: list[tuple[float, int]] = []
        self.opened = threading.Event()

    def run(self) -> None:
        with (
            httpx.Client(timeout=30) as client,
            client.stream("GET", self.url, headers={"X-Forwarded-Proto": "https"}) as stream,
        ):
            assert stream.status_code == 200, stream.status_code
            assert stream.headers["content-type"].startswith("text/event-stream")
            for line in stream.iter_lines():
                if line.startswith("data: "):
                    self.events.append((time.monotonic(), int(line.removeprefix("data: "))))
                    self.opened.set()
                if len(self.events) >= 4:
                    return


def test_every_tap_reaches_every_watching_phone(make_session, actor, tmp_path):
    session, players = make_session()
    viewer = share_link_create(session_id=session.pk, role="viewer", actor=actor)
    with serve(tmp_path, DB_POOL="true") as server:
        url = f"http://127.0.0.1:{server.port}/s/{viewer.token}/live/"
        phones = [Watcher(url) for _ in range(6)]  # over both workers, most likely
        listening(phones)
        session.refresh_from_db()
        assert {phone.events[0][1] for phone in phones} == {session.version}

        deal = session.deals.get()
        for name in ("Alice", "Ben", "Cara"):
            deal_tap(deal_id=deal.pk, player_id=players[name].pk, actor=actor)
            time.sleep(0.3)
        for phone in phones:
            phone.join(10)

    session.refresh_from_db()
    for phone in phones:
        versions = [version for _, version in phone.events]
        # Every tap heard, each version once and in order, the last one the session's.
        # (How soon is measured by bench/capacity.py, not asserted here.)
        assert versions == sorted(set(versions))
        assert versions[-1] == session.version


class StandingsWatcher(threading.Thread):
    """A standings page on the live stream: keeps the fragments it is sent."""

    def __init__(self, url: str, versions: int) -> None:
        super().__init__(daemon=True)
        self.url = url
        self.versions = versions
        self.fragments: list[str] = []
        self.heard: list[int] = []
        self.opened = threading.Event()

    def run(self) -> None:
        with (
            httpx.Client(timeout=30) as client,
            client.stream("GET", self.url, headers={"X-Forwarded-Proto": "https"}) as stream,
        ):
            assert stream.status_code == 200, stream.status_code
            kind, data = None, []
            for line in stream.iter_lines():
                if line.startswith("event: "):
                    kind = line.removeprefix("event: ")
                elif line.startswith("data: "):
                    data.append(line.removeprefix("data: "))
                elif line == "" and data:
                    if kind == "standings":
                        self.fragments.append("\n".join(data))
                    else:
                        self.heard.append(int(data[0]))
                        self.opened.set()
                    kind, data = None, []
                    if len(self.heard) >= self.versions:
                        return


def test_a_standings_page_is_sent_the_rows_a_tap_moved(make_session, actor, tmp_path):
    session, players = make_session()
    viewer = share_link_create(session_id=session.pk, role="viewer", actor=actor)
    with serve(tmp_path, DB_POOL="true") as server:
        # A page that shows no rows yet: sent the standings at once, then on each change.
        url = f"http://127.0.0.1:{server.port}/s/{viewer.token}/live/?show=standings&seen="
        phones = [StandingsWatcher(url, versions=4) for _ in range(4)]
        listening(phones)

        deal = session.deals.get()
        for name in ("Alice", "Ben", "Cara"):  # the third tap files the deal
            deal_tap(deal_id=deal.pk, player_id=players[name].pk, actor=actor)
            time.sleep(0.3)
        for phone in phones:
            phone.join(10)

    session.refresh_from_db()
    for phone in phones:
        assert phone.heard[-1] == session.version
        # The opening standings, then the filed deal's; the two taps before it moved none.
        assert len(phone.fragments) == 2, phone.fragments
        assert "after 0 deals" in phone.fragments[0]
        assert "after 1 deal" in phone.fragments[1]
        assert f'data-version="{session.version}"' in phone.fragments[1]


HEADERS = {"X-Forwarded-Proto": "https"}


def test_an_unchanged_table_s_204_leaves_the_connection_clean(make_session, actor, tmp_path):
    """The rows-unchanged 204 has no body: once it said "None", which uvicorn sent and a
    kept-alive connection read as the start of the next answer (found by a reviewer)."""
    session, _players = make_session()
    viewer = share_link_create(session_id=session.pk, role="viewer", actor=actor)
    with serve(tmp_path) as server:
        # The fragment, not the page: pages need `collectstatic`'s manifest with DEBUG off.
        page = httpx.get(
            f"http://127.0.0.1:{server.port}/s/{viewer.token}/standings/",
            headers={**HEADERS, "HX-Request": "true"},
        ).text
        seen = re.search(r'"seen": "([^"]*)"', page).group(1)
        request = (
            f"GET /s/{viewer.token}/standings/?seen={quote(seen)}&version=0 HTTP/1.1\r\n"
            f"Host: 127.0.0.1:{server.port}\r\nHX-Request: true\r\n"
            "X-Forwarded-Proto: https\r\n\r\n"
        ).encode()
        with socket.create_connection(("127.0.0.1", server.port), timeout=5) as sock:
            sock.sendall(request)
            received = b""
            while b"\r\n\r\n" not in received:
                received += sock.recv(65536)
            time.sleep(0.5)
            sock.settimeout(0.5)
            with contextlib.suppress(TimeoutError):
                received += sock.recv(65536)
    head, _, after = received.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 204"), head
    assert after == b"", (head, after)


class Listener(threading.Thread):
    """A page's stream: the versions it hears, and whether the server ended it."""

    def __init__(self, url: str, cookies: dict[str, str] | None = None) -> None:
        super().__init__(daemon=True)
        self.url = url
        self.cookies = cookies
        self.versions: list[int] = []
        self.opened = threading.Event()
        self.ended = False

    def run(self) -> None:
        try:
            with (
                httpx.Client(timeout=6, cookies=self.cookies) as client,
                client.stream("GET", self.url, headers=HEADERS) as stream,
            ):
                for line in stream.iter_lines():
                    said = line.removeprefix("data: ")
                    if said.isdigit():  # a version (not a line of pushed standings)
                        self.versions.append(int(said))
                        self.opened.set()
            self.ended = True
        except httpx.HTTPError:
            pass


def test_a_revoked_link_s_stream_ends_at_once(make_session, actor, tmp_path):
    """The revocation moves the session's access_version, said in its notification: the
    streams of the link (the tap screen's too, without `show=standings`) read the link
    again and end, before the table's next change."""
    session, _ = make_session()
    scorer = share_link_create(session_id=session.pk, role="scorer", actor=actor)
    with serve(tmp_path) as server:
        url = f"http://127.0.0.1:{server.port}/s/{scorer.token}/live/"
        phones = [Listener(url), Listener(url + "?show=standings")]
        for phone in phones:
            phone.start()
            assert phone.opened.wait(10), "no first event"

        share_link_revoke(link_id=scorer.pk, actor=actor)
        for phone in phones:
            phone.join(4)

    assert [phone.ended for phone in phones] == [True, True], "a revoked link's stream went on"


def test_a_revoked_link_s_stream_stops_hearing_at_the_next_change(make_session, actor, tmp_path):
    """A revoked link hears nothing more of the table (found by a reviewer)."""
    session, players = make_session()
    scorer = share_link_create(session_id=session.pk, role="scorer", actor=actor)
    with serve(tmp_path) as server:
        phone = Listener(f"http://127.0.0.1:{server.port}/s/{scorer.token}/live/")
        phone.start()
        assert phone.opened.wait(10), "no first event"
        heard_before = list(phone.versions)

        share_link_revoke(link_id=scorer.pk, actor=actor)
        deal = session.deals.get()
        deal_tap(deal_id=deal.pk, player_id=players["Alice"].pk, actor=actor)
        deal_tap(deal_id=deal.pk, player_id=players["Ben"].pk, actor=actor)
        phone.join(8)

    assert phone.versions == heard_before, "a revoked link heard the session change"


def test_a_member_s_stream_ends_at_once_when_the_account_is_shut_out(
    make_session, actor, user, django_user_model, tmp_path
):
    """Under ASGI too: a member removed from the circle, or an account deactivated, and
    its open page reads the membership and the sign-in again (in a thread of the loop's
    pool) and ends, before the table's next change."""
    session, _ = make_session()
    friend = django_user_model.objects.create_user(username="binh", password="binh-pass-123")
    other = django_user_model.objects.create_user(username="chi", password="chi-pass-123")
    for account in (friend, other):
        session.circle.members.add(account)

    def signed_in(account) -> dict[str, str]:
        client = Client()
        client.force_login(account)
        return {name: morsel.value for name, morsel in client.cookies.items()}

    # The tests' secret, so that the sessions signed in here are the server's too.
    with serve(tmp_path, SECRET_KEY=settings.SECRET_KEY) as server:
        url = f"http://127.0.0.1:{server.port}/sessions/{session.pk}/live/"
        removed, deactivated, staying = (
            Listener(url, signed_in(friend)),
            Listener(url + "?show=standings", signed_in(other)),
            Listener(url, signed_in(user)),
        )
        for phone in (removed, deactivated, staying):
            phone.start()
            assert phone.opened.wait(10), "no first event"

        member_remove(circle=session.circle, user_id=friend.pk, actor=actor)
        other.is_active = False
        other.save()
        removed.join(4)
        deactivated.join(4)

    assert (removed.ended, deactivated.ended) == (True, True), "a shut-out account went on hearing"
    session.refresh_from_db()
    assert staying.versions[-1] == session.version  # the owner heard the changes, and stayed
