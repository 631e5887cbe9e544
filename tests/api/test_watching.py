"""Watching a session through the API: every read of its data carries the session's
version as an ETag; asked again with it (If-None-Match) while nothing changed, the answer
is 304 Not Modified, computed from two queries however long the session."""

from __future__ import annotations

import pytest

from tests.api.conftest import client_with
from tracker.services import api_token_create, player_rename, share_link_create

pytestmark = pytest.mark.django_db


def watched_paths(table):
    return [
        f"/api/sessions/{table.id}/",
        f"/api/sessions/{table.id}/standings/",
        f"/api/sessions/{table.id}/settlement/",
        f"/api/deals/{table.deal}/",
    ]


def test_an_unchanged_session_answers_304_from_two_queries(start, api, django_assert_num_queries):
    table = start()
    table.tap(table.deal, "Alice")
    for path in watched_paths(table):
        first = api.get(path)
        assert first.status_code == 200
        tag = first["ETag"]
        assert first["Cache-Control"] == "private, no-cache"

        # The token, then the session (or deal) in reach: nothing is computed.
        with django_assert_num_queries(2):
            again = api.get(path, HTTP_IF_NONE_MATCH=tag)

        assert (again.status_code, again["ETag"], again.content) == (304, tag, b"")


def test_any_change_to_the_session_gives_a_new_tag_and_the_new_answer(start, api):
    table = start()
    tags = {path: api.get(path)["ETag"] for path in watched_paths(table)}

    table.tap(table.deal, "Alice")

    for path, tag in tags.items():
        response = api.get(path, HTTP_IF_NONE_MATCH=tag)
        assert response.status_code == 200, path
        assert response["ETag"] != tag


def test_a_player_renamed_changes_every_session_that_shows_their_name(start, api, circle):
    table = start()
    path = f"/api/sessions/{table.id}/standings/"
    tag = api.get(path)["ETag"]

    player_rename(player=circle.players.get(name="Alice"), name="Alicia")

    response = api.get(path, HTTP_IF_NONE_MATCH=tag)
    assert response.status_code == 200
    assert "Alicia" in {row["name"] for row in response.json()["rows"]}


def test_the_tag_differs_by_role_and_language(start, api, actor):
    table = start()
    path = f"/api/sessions/{table.id}/settlement/"
    viewer = share_link_create(session_id=table.id, role="viewer", actor=actor)
    scorer = share_link_create(session_id=table.id, role="scorer", actor=actor)
    tags = {
        api.get(path)["ETag"],
        api.get(path, HTTP_ACCEPT_LANGUAGE="vi")["ETag"],
        client_with(f"Share {viewer.token}").get(path)["ETag"],
        client_with(f"Share {scorer.token}").get(path)["ETag"],
    }

    assert len(tags) == 4  # what each may see, in its language, is its own answer


def test_a_tag_is_no_way_past_access(start, api, actor, django_user_model):
    table = start()
    tag = api.get(f"/api/sessions/{table.id}/standings/")["ETag"]
    stranger = django_user_model.objects.create_user(username="outsider", password="x-y-z-w")
    outsider = client_with(f"Token {api_token_create(user=stranger).key}")

    response = outsider.get(f"/api/sessions/{table.id}/standings/", HTTP_IF_NONE_MATCH=tag)

    assert response.status_code == 404
