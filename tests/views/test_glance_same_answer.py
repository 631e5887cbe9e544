"""The pages' short way (`session_page(asked_again=...)`, `tracker.glance`):
each ask is answered once the short way may answer it, and once with the glance turned
off (the long way, as before the change); both must give one answer."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse

from tests.views.helpers import htmx, play_deals, shows
from tracker import glance
from tracker.models import Session
from tracker.services import share_link_create, share_link_revoke

pytestmark = pytest.mark.django_db

MOMENTARY = {"Date", "Expires"}


@pytest.fixture
def long_way(monkeypatch):
    def ask(client, path, data=None, **extra):
        with monkeypatch.context() as patch:
            patch.setattr(glance, "by_link", lambda *args, **kwargs: None)
            return client.get(path, data, **extra)

    return ask


def headers(response) -> dict[str, str]:
    return {name: value for name, value in response.items() if name not in MOMENTARY}


def body(response) -> bytes:
    """The page as sent, but for what changes at every render (the time it was drawn, a
    nonce, a CSRF token)."""
    content = re.sub(rb'data-synced="[^"]*"', b"", response.content)
    content = re.sub(rb'nonce(=|-)[^"\s;]*', b"", content)
    content = re.sub(rb'"X-CSRFToken": "[^"]*"', b"", content)
    return re.sub(rb'name="csrfmiddlewaretoken" value="[^"]*"', b"", content)


def same(short, long) -> None:
    assert short.status_code == long.status_code, (short.status_code, long.status_code)
    assert body(short) == body(long)
    assert headers(short).keys() == headers(long).keys()
    for name, value in headers(short).items():
        if name != "Content-Security-Policy":
            assert value == headers(long)[name], name


def version(session) -> str:
    return str(Session.objects.get(pk=session.pk).version)


def standings_shown(client, token):
    shown = client.get(f"/s/{token}/standings/", **htmx())
    return shows(shown)


@pytest.mark.parametrize("role", ["viewer", "scorer"])
@pytest.mark.parametrize("language", ["en", "vi"])
def test_standings_204_and_kept_fragment_are_the_long_way_s(table, actor, long_way, role, language):
    session, players = table
    link = share_link_create(session_id=session.pk, role=role, actor=actor)
    play_deals(session, players, 1, actor)
    phone = Client(HTTP_ACCEPT_LANGUAGE=language)
    path = f"/s/{link.token}/standings/"
    asked = standings_shown(phone, link.token)

    short = phone.get(path, asked, **htmx())  # unchanged: 204
    assert short.status_code == 204
    same(short, long_way(phone, path, asked, **htmx()))

    play_deals(session, players, 1, actor)
    first = phone.get(path, asked, **htmx())  # the long way keeps the fragment
    short = phone.get(path, asked, **htmx())
    assert (first.status_code, short.status_code) == (200, 200)
    same(short, long_way(phone, path, asked, **htmx()))


def test_the_tap_screen_s_204_is_the_long_way_s(table, actor, long_way):
    session, _ = table
    link = share_link_create(session_id=session.pk, role="scorer", actor=actor)
    phone = Client()
    path = reverse("link:tap", kwargs={"token": link.token})

    short = phone.get(path, {"seen": version(session)}, **htmx())
    assert short.status_code == 204
    same(short, long_way(phone, path, {"seen": version(session)}, **htmx()))


def test_a_kept_fragment_in_another_language_is_not_sent(table, actor):
    session, players = table
    link = share_link_create(session_id=session.pk, role="viewer", actor=actor)
    play_deals(session, players, 1, actor)
    path = f"/s/{link.token}/standings/"
    english, vietnamese = Client(HTTP_ACCEPT_LANGUAGE="en"), Client(HTTP_ACCEPT_LANGUAGE="vi")
    asked = standings_shown(english, link.token)
    play_deals(session, players, 1, actor)

    in_english = english.get(path, asked, **htmx())
    in_vietnamese = vietnamese.get(path, asked, **htmx())
    again_in_vietnamese = vietnamese.get(path, asked, **htmx())

    assert in_english.content != in_vietnamese.content
    assert again_in_vietnamese.content == in_vietnamese.content
    assert again_in_vietnamese["Content-Language"] == "vi"


def test_a_revoked_link_gets_no_kept_fragment(table, actor, long_way):
    session, players = table
    link = share_link_create(session_id=session.pk, role="viewer", actor=actor)
    play_deals(session, players, 1, actor)
    phone = Client()
    path = f"/s/{link.token}/standings/"
    asked = standings_shown(phone, link.token)
    play_deals(session, players, 1, actor)
    assert phone.get(path, asked, **htmx()).status_code == 200  # kept now
    share_link_revoke(link_id=link.pk, actor=actor)

    for sent in (asked, {**asked, "version": version(session)}):
        short = phone.get(path, sent, **htmx())
        assert short.status_code == 404
        same(short, long_way(phone, path, sent, **htmx()))


@pytest.mark.parametrize("token", ["x" * 65, "caf\u00e9", "%00", "a b", "*", "..", "-" * 64, "0"])
def test_odd_tokens_asking_again_are_answered_as_before(table, long_way, token):
    session, _ = table
    phone = Client()
    for name, asks in (("standings", "version"), ("tap", "seen")):
        path = f"/s/{token}/" if name == "tap" else f"/s/{token}/standings/"
        short = phone.get(path, {asks: version(session)}, **htmx())
        long = long_way(phone, path, {asks: version(session)}, **htmx())
        assert short.status_code in (404, 400), (name, short.status_code)
        same(short, long)


def test_head_on_a_link_page_is_refused_as_before(table, actor, long_way):
    session, _ = table
    link = share_link_create(session_id=session.pk, role="scorer", actor=actor)
    path = f"/s/{link.token}/standings/"

    short = Client().head(path, {"version": version(session)}, **htmx())

    assert short.status_code == 405


def test_the_request_log_names_the_link_of_a_short_204(table, actor):
    import logging

    session, _ = table
    link = share_link_create(session_id=session.pk, role="scorer", actor=actor)
    records: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record)

    logger = logging.getLogger("squarescores.requests")
    keep = Keep()
    logger.addHandler(keep)
    try:
        response = Client().get(f"/s/{link.token}/", {"seen": version(session)}, **htmx())
    finally:
        logger.removeHandler(keep)

    assert response.status_code == 204
    fields = records[-1].fields
    assert (fields["user"], fields["share_link"]) == (None, link.pk)
    assert link.token not in fields["path"]
