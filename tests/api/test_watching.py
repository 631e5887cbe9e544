"""Watching a session through the API: every read of its data carries the session's
version as an ETag; asked again with it (If-None-Match) while nothing changed, the answer
is 304 Not Modified, from one query however long the session (`tracker.api.unchanged`),
and only to a caller the long way would have let read the answer."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from tests.api.conftest import JsonClient, client_with
from tracker.models import ApiToken, Session
from tracker.services import (
    api_token_create,
    member_remove,
    player_rename,
    share_link_create,
    share_link_revoke,
)

pytestmark = pytest.mark.django_db


def watched_paths(table):
    return [
        f"/api/sessions/{table.id}/",
        f"/api/sessions/{table.id}/standings/",
        f"/api/sessions/{table.id}/settlement/",
        f"/api/deals/{table.deal}/",
    ]


@pytest.mark.parametrize("method", ["get", "head"])
@pytest.mark.parametrize("caller", ["token", "viewer", "scorer"])
def test_an_unchanged_session_answers_304_from_one_query(
    start, api, actor, caller, method, django_assert_num_queries
):
    table = start()
    table.tap(table.deal, "Alice")
    if caller != "token":
        api = client_with(
            f"Share {share_link_create(session_id=table.id, role=caller, actor=actor).token}"
        )
    for path in watched_paths(table):
        first = api.get(path)
        assert first.status_code == 200
        tag = first["ETag"]
        assert first["Cache-Control"] == "private, no-cache"

        # The caller and the session's version in one statement: nothing is computed
        # (`tracker.api.unchanged`).
        with django_assert_num_queries(1):
            again = getattr(api, method)(path, HTTP_IF_NONE_MATCH=tag)

        assert (again.status_code, again["ETag"], again.content) == (304, tag, b"")
        assert again["Cache-Control"] == "private, no-cache"
        assert (again["Vary"], again["Allow"]) == (first["Vary"], first["Allow"])
        assert "Content-Type" not in again


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


# --- The short 304 and the long way: one verdict for every caller -------------------------
#
# Each caller sends the tag it would hold if it could read the session now; only those the
# long way lets read the answer get the 304, the others what the long way says to them.


def tag_for(table, role="member", language="en"):
    version = Session.objects.get(pk=table.id).version
    return f'"{table.id}.{version}.{role}.{language}"'


def asked(client, table, role="member", path=None, language="en"):
    path = path or f"/api/sessions/{table.id}/standings/"
    response = client.get(
        path, HTTP_IF_NONE_MATCH=tag_for(table, role), HTTP_ACCEPT_LANGUAGE=language
    )
    return response.status_code, (response.json().get("code") if response.content else None)


def test_a_stranger_or_another_sessions_link_hears_404_with_the_tag(
    start, api, actor, stranger_api
):
    table, other = start(), start()
    others_link = share_link_create(session_id=other.id, role="viewer", actor=actor)
    elsewhere = client_with(f"Share {others_link.token}")

    for path in watched_paths(table):
        assert asked(stranger_api, table, path=path) == (404, "not_found"), path
        assert asked(elsewhere, table, "viewer", path=path) == (404, "not_found"), path


def test_a_member_removed_hears_404_at_once(start, circle, user, actor, django_user_model):
    table = start()
    friend = django_user_model.objects.create_user(username="friend", password="a-b-c-d-e")
    circle.members.add(friend)
    friends = client_with(f"Token {api_token_create(user=friend).key}")
    assert asked(friends, table) == (304, None)

    member_remove(circle=circle, user_id=friend.pk, actor=actor)

    assert asked(friends, table) == (404, "not_found")


def test_a_revoked_link_hears_401_with_the_tag(start, actor):
    table = start()
    link = share_link_create(session_id=table.id, role="viewer", actor=actor)
    viewer = client_with(f"Share {link.token}")
    assert asked(viewer, table, "viewer") == (304, None)

    share_link_revoke(link_id=link.pk, actor=actor)

    assert asked(viewer, table, "viewer")[0] == 401


def test_a_deactivated_account_or_a_revoked_token_hears_401(start, api, user, token):
    table = start()
    assert asked(api, table) == (304, None)

    user.is_active = False
    user.save()
    assert asked(api, table) == (401, "token_not_valid")

    user.is_active = True
    user.save()
    assert asked(api, table) == (304, None)
    ApiToken.objects.filter(user=user).delete()
    assert asked(api, table) == (401, "token_not_valid")


def test_a_token_due_its_touch_goes_the_long_way_and_is_touched(
    start, api, user, django_assert_max_num_queries
):
    table = start()
    long_ago = timezone.now() - timedelta(minutes=5)
    ApiToken.objects.filter(user=user).update(last_used_at=long_ago)

    assert asked(api, table) == (304, None)

    assert ApiToken.objects.get(user=user).last_used_at > long_ago
    path, tag = f"/api/sessions/{table.id}/standings/", tag_for(table)
    with django_assert_max_num_queries(1):  # touched: the short way again
        assert api.get(path, HTTP_IF_NONE_MATCH=tag).status_code == 304


def test_an_expired_token_hears_401_and_is_gone(start, api, user, settings):
    table = start()
    ApiToken.objects.filter(user=user).update(
        last_used_at=timezone.now() - timedelta(days=settings.API_TOKEN_IDLE_DAYS + 1)
    )

    assert asked(api, table) == (401, "token_expired")
    assert not ApiToken.objects.filter(user=user).exists()


def test_the_tag_of_another_language_or_role_is_a_new_answer(start, api, actor):
    table = start()
    scorer = client_with(
        f"Share {share_link_create(session_id=table.id, role='scorer', actor=actor).token}"
    )

    assert asked(api, table, language="vi") == (200, None)  # an English tag, asked in Vietnamese
    assert asked(scorer, table, "viewer") == (200, None)  # a viewer's tag, asked as a scorer
    assert asked(scorer, table, "scorer") == (304, None)


def test_a_signed_in_page_asking_with_the_tag_goes_the_long_way(start, user):
    table = start()
    page = JsonClient()
    page.force_login(user)

    assert asked(page, table) == (304, None)


@pytest.mark.parametrize(
    "header",
    [
        "Token",
        "Token a b",
        "Token " + "x" * 40,
        "Share not-a-token!",
        "Share " + "x" * 65,
        "Bearer abc",
        "Token caf\u00e9",
    ],
)
def test_bad_credentials_with_a_tag_are_refused_as_without_one(start, header):
    table = start()
    path = f"/api/sessions/{table.id}/standings/"
    caller = client_with(header)

    with_tag = caller.get(path, HTTP_IF_NONE_MATCH=tag_for(table))
    without = caller.get(path)

    assert with_tag.status_code == without.status_code
    assert with_tag.status_code in (401, 403)
    assert with_tag.json() == without.json()


@pytest.mark.parametrize("pk", [0, 99999, 2**63, 10**30])
def test_an_id_of_nothing_with_a_tag_is_404(start, api, pk):
    start()
    for path in (f"/api/sessions/{pk}/standings/", f"/api/deals/{pk}/"):
        response = api.get(path, HTTP_IF_NONE_MATCH="*")
        assert response.status_code == 404, path
        assert response.json()["code"] == "not_found"


def test_a_star_is_304_only_in_reach(start, api, stranger_api):
    table = start()
    path = f"/api/deals/{table.deal}/"

    assert api.get(path, HTTP_IF_NONE_MATCH="*").status_code == 304
    assert stranger_api.get(path, HTTP_IF_NONE_MATCH="*").status_code == 404
