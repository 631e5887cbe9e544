"""`Idempotency-Key`: a retried write is applied once and answered the same (SPEC 8)."""

from datetime import timedelta

import pytest
from django.urls import URLPattern, get_resolver
from django.utils import timezone

from tests.api.conftest import client_with, db_state
from tracker import gate
from tracker.api.auth import AuthTokenView
from tracker.gate import idempotency_keys_purge
from tracker.models import IdempotencyKey, Tap

pytestmark = pytest.mark.django_db


def tap(client, table, name, key, deal=None):
    deal = deal or table.deal
    return client.post(
        f"/api/deals/{deal}/taps/", {"player": table.p[name]}, HTTP_IDEMPOTENCY_KEY=key
    )


def test_same_key_and_body_replays_the_first_answer_without_a_second_tap(start, api):
    table = start()
    deal = table.deal
    first = tap(api, table, "Alice", "tap-1", deal)

    again = tap(api, table, "Alice", "tap-1", deal)

    assert (first.status_code, again.status_code) == (201, 201)
    assert again.content == first.content
    assert (first.get("Idempotent-Replayed"), again["Idempotent-Replayed"]) == (None, "true")
    assert Tap.objects.count() == 1
    key = IdempotencyKey.objects.get()
    assert (key.key, key.status_code) == ("tap-1", 201)


def test_a_replay_answers_as_the_first_time_even_after_more_taps(start, api):
    table = start()
    deal = table.deal
    first = tap(api, table, "Alice", "tap-1", deal)
    tap(api, table, "Cara", "tap-2", deal)

    again = tap(api, table, "Alice", "tap-1", deal)

    assert again.json() == first.json()
    assert len(again.json()["taps"]) == 1
    assert Tap.objects.count() == 2


def test_same_key_with_another_body_is_refused_with_422(start, api):
    table = start()
    tap(api, table, "Alice", "tap-1")
    before = db_state()

    response = tap(api, table, "Ben", "tap-1")

    assert response.status_code == 422
    assert response.json() == {
        "code": "idempotency_key_reused",
        "detail": (
            "This Idempotency-Key was already used for a different request; "
            "send a new key with a new request."
        ),
    }
    assert db_state() == before


def test_same_key_on_another_path_is_refused_with_422(start, api):
    table = start()
    deal = table.deal
    tap(api, table, "Alice", "k", deal)

    response = api.post(f"/api/deals/{deal}/undo/", HTTP_IDEMPOTENCY_KEY="k")

    assert response.status_code == 422
    assert Tap.objects.filter(undone_at__isnull=True).count() == 1


def test_a_key_is_stored_with_the_answer_of_its_write(start, api, user):
    table = start()

    first = tap(api, table, "Alice", "tap-1")

    key = IdempotencyKey.objects.get()
    assert (key.scope, key.key, key.status_code) == (f"user:{user.pk}", "tap-1", 201)
    assert key.response_body == first.content.decode()


def test_a_write_that_fails_after_its_work_stores_neither(start, api, monkeypatch):
    """The key is inserted in the write's transaction: a failure there undoes both."""
    table = start()

    def broken(row):
        raise RuntimeError("the disk is full")

    monkeypatch.setattr(gate, "insert", broken)  # how the gate stores the key
    with pytest.raises(RuntimeError):
        tap(api, table, "Alice", "tap-1")
    monkeypatch.undo()

    assert (Tap.objects.count(), IdempotencyKey.objects.count()) == (0, 0)
    assert tap(api, table, "Alice", "tap-1").status_code == 201
    assert Tap.objects.count() == 1


def test_a_refused_request_lets_the_key_go(start, api):
    table = start()
    deal = table.deal
    refused = api.post(f"/api/deals/{deal}/taps/", {"player": 999}, HTTP_IDEMPOTENCY_KEY="tap-1")
    assert refused.status_code == 400
    assert IdempotencyKey.objects.count() == 0

    accepted = tap(api, table, "Alice", "tap-1", deal)

    assert accepted.status_code == 201
    assert Tap.objects.count() == 1


def test_keys_are_scoped_to_the_caller(start, api, user):
    table = start()
    deal = table.deal
    link = api.post(f"/api/sessions/{table.id}/share-links/", {"role": "scorer"}).json()
    phone = client_with(f"Share {link['token']}")

    mine = tap(api, table, "Alice", "same", deal)
    theirs = tap(phone, table, "Cara", "same", deal)  # another caller: not a reused key

    assert (mine.status_code, theirs.status_code) == (201, 201)
    assert Tap.objects.count() == 2
    assert sorted(IdempotencyKey.objects.values_list("scope", "key")) == [
        (f"link:{link['id']}", "same"),
        (f"user:{user.pk}", "same"),
    ]


def test_an_unusable_key_is_refused(start, api):
    table = start()
    before = db_state()

    for key in ("", "x" * 256, "naïve"):
        response = tap(api, table, "Alice", key)
        assert response.status_code == 400
        assert response.json()["detail"] == (
            "The Idempotency-Key header is 1 to 255 printable ASCII characters, such as a UUID."
        )
    assert db_state() == before


def test_reads_ignore_the_key(start, api):
    table = start()

    response = api.get(f"/api/sessions/{table.id}/", HTTP_IDEMPOTENCY_KEY="read")

    assert response.status_code == 200
    assert IdempotencyKey.objects.count() == 0


def test_purge_removes_only_keys_older_than_a_day(start, api):
    table = start()
    tap(api, table, "Alice", "old")
    tap(api, table, "Cara", "recent")
    IdempotencyKey.objects.filter(key="old").update(created_at=timezone.now() - timedelta(hours=25))
    IdempotencyKey.objects.filter(key="recent").update(
        created_at=timezone.now() - timedelta(hours=23)
    )

    assert idempotency_keys_purge(older_than=timedelta(hours=1)) == 1  # never under 24 h

    assert list(IdempotencyKey.objects.values_list("key", flat=True)) == ["recent"]


def test_every_write_endpoint_takes_the_key():
    """Each POST, PUT, PATCH and DELETE of the API goes through the write gate (`gated`)."""
    api_patterns = [
        pattern
        for pattern in get_resolver().url_patterns
        if not isinstance(pattern, URLPattern) and pattern.pattern.describe().startswith("'api/")
    ][0].url_patterns
    writes = {}
    for pattern in api_patterns:
        view = pattern.callback.view_class
        for method in ("post", "put", "patch", "delete"):
            if hasattr(view, method) and view is not AuthTokenView:
                writes[f"{method} {pattern.pattern}"] = getattr(
                    getattr(view, method), "gated", False
                )

    assert len(writes) == 32  # 29, and tap, undo and event record by deal number
    assert [write for write, wrapped in writes.items() if not wrapped] == []
