"""The API's short way (`tracker.glance`, `ApiView.dispatch`): each test asks
once the short way may answer, and once with the glance turned off (the long way, as
before the change), and holds both to one answer: status, body and headers."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from tests.api.conftest import client_with
from tests.api.test_watching import tag_for, watched_paths
from tracker.models import ApiToken, Session
from tracker.services import share_link_create, share_link_revoke

pytestmark = pytest.mark.django_db

# Headers that say the same thing at another moment.
MOMENTARY = {"Date", "Expires"}


def headers(response) -> dict[str, str]:
    return {name: value for name, value in response.items() if name not in MOMENTARY}


def same(short, long) -> None:
    assert short.status_code == long.status_code, (short.status_code, long.status_code)
    assert short.content == long.content
    assert headers(short) == headers(long)


def callers(table, api, actor):
    yield "token", api
    for role in ("viewer", "scorer"):
        link = share_link_create(session_id=table.id, role=role, actor=actor)
        yield role, client_with(f"Share {link.token}")


# --- Content negotiation comes first: DRF negotiates before the view, tag or no tag ----


def test_a_304_for_a_client_that_accepts_no_json_is_406_as_the_long_way_says(start, api, long_way):
    """DRF negotiates the content before the view: a client that accepts only XML hears
    406, tag or no tag. The short 304 never negotiates."""
    table = start()
    path = f"/api/sessions/{table.id}/standings/"
    tag = api.get(path)["ETag"]

    long = long_way(api, path, HTTP_IF_NONE_MATCH=tag, HTTP_ACCEPT="application/xml")
    short = api.get(path, HTTP_IF_NONE_MATCH=tag, HTTP_ACCEPT="application/xml")

    assert long.status_code == 406
    same(short, long)


def test_a_304_for_an_unknown_format_is_404_as_the_long_way_says(start, api, long_way):
    table = start()
    path = f"/api/sessions/{table.id}/standings/"
    tag = api.get(path)["ETag"]

    long = long_way(api, path + "?format=xml", HTTP_IF_NONE_MATCH=tag)
    short = api.get(path + "?format=xml", HTTP_IF_NONE_MATCH=tag)

    assert long.status_code == 404
    same(short, long)


def test_a_304_to_the_browsable_api_has_the_long_way_s_headers(start, api, long_way):
    table = start()
    path = f"/api/sessions/{table.id}/standings/"
    tag = api.get(path)["ETag"]

    long = long_way(api, path, HTTP_IF_NONE_MATCH=tag, HTTP_ACCEPT="text/html")
    short = api.get(path, HTTP_IF_NONE_MATCH=tag, HTTP_ACCEPT="text/html")

    assert (short.status_code, long.status_code) == (304, 304)
    assert headers(short) == headers(long)


# --- Every caller, path, tag form and refusal: the long way's answer -------------------


@pytest.mark.parametrize("method", ["get", "head"])
@pytest.mark.parametrize("prefix", ["/api/", "/api/v1/"])
def test_304_and_kept_answers_are_the_long_way_s_for_every_caller(
    start, api, actor, long_way, method, prefix
):
    table = start()
    table.tap(table.deal, "Alice")
    for role, client in callers(table, api, actor):
        for path in watched_paths(table):
            path = path.replace("/api/", prefix, 1)
            first = client.get(path)  # keeps the answer at this version
            assert first.status_code == 200, (role, path)
            tag = first["ETag"]

            short = getattr(client, method)(path, HTTP_IF_NONE_MATCH=tag)
            long = long_way(client, path, method, HTTP_IF_NONE_MATCH=tag)
            assert short.status_code == 304
            same(short, long)

            short = getattr(client, method)(path)
            long = long_way(client, path, method)
            assert short.status_code == 200
            same(short, long)


@pytest.mark.parametrize(
    "sent",
    [
        "W/{tag}",
        '"nothing", {tag}',
        '{tag}, "nothing"',
        "*",
        "{tag},*",
        "  {tag}  ",
        '"nothing"',
        "{bare}",
        "garbage, {tag}",
    ],
)
def test_if_none_match_forms_get_the_long_way_s_answer(start, api, long_way, sent):
    table = start()
    path = f"/api/sessions/{table.id}/"
    tag = api.get(path)["ETag"]
    sent = sent.format(tag=tag, bare=tag.strip('"'))

    short = api.get(path, HTTP_IF_NONE_MATCH=sent)
    long = long_way(api, path, HTTP_IF_NONE_MATCH=sent)

    same(short, long)


def test_a_kept_answer_in_one_language_is_not_another_s(start, api, long_way):
    table = start()
    path = f"/api/sessions/{table.id}/settlement/"
    in_vietnamese = api.get(path, HTTP_ACCEPT_LANGUAGE="vi")
    in_english = api.get(path, HTTP_ACCEPT_LANGUAGE="en")
    long = long_way(api, path, HTTP_ACCEPT_LANGUAGE="en")

    same(in_english, long)
    assert in_vietnamese["ETag"] != in_english["ETag"]
    assert in_english["Content-Language"] == "en"


def test_a_kept_answer_is_not_a_revoked_link_s_or_a_stranger_s(
    start, api, actor, stranger_api, long_way
):
    table, other = start(), start()
    link = share_link_create(session_id=table.id, role="viewer", actor=actor)
    viewer = client_with(f"Share {link.token}")
    elsewhere = client_with(
        f"Share {share_link_create(session_id=other.id, role='viewer', actor=actor).token}"
    )
    for path in watched_paths(table):
        assert viewer.get(path).status_code == 200  # kept for viewers
        assert api.get(path).status_code == 200  # kept for members
        for client in (stranger_api, elsewhere):
            short = client.get(path)
            assert short.status_code == 404
            same(short, long_way(client, path))
    share_link_revoke(link_id=link.pk, actor=actor)
    for path in watched_paths(table):
        short = viewer.get(path, HTTP_IF_NONE_MATCH="*")
        assert short.status_code == 401
        same(short, long_way(viewer, path, HTTP_IF_NONE_MATCH="*"))


def test_a_deactivated_account_with_a_kept_answer_hears_401(start, api, user):
    table = start()
    path = f"/api/sessions/{table.id}/standings/"
    assert api.get(path).status_code == 200
    user.is_active = False
    user.save()

    response = api.get(path)

    assert response.status_code == 401
    assert response.json()["code"] == "token_not_valid"


def test_an_expired_token_with_a_kept_answer_hears_401(start, api, user, settings):
    table = start()
    path = f"/api/sessions/{table.id}/standings/"
    assert api.get(path).status_code == 200
    ApiToken.objects.filter(user=user).update(
        last_used_at=timezone.now() - timedelta(days=settings.API_TOKEN_IDLE_DAYS, seconds=1)
    )

    response = api.get(path, HTTP_IF_NONE_MATCH="*")

    assert (response.status_code, response.json()["code"]) == (401, "token_expired")


def test_a_token_touched_a_minute_ago_is_touched_again(start, api, user):
    table = start()
    path = f"/api/sessions/{table.id}/standings/"
    api.get(path)
    before = timezone.now() - timedelta(seconds=61)
    ApiToken.objects.filter(user=user).update(last_used_at=before)

    assert api.get(path).status_code == 200

    assert ApiToken.objects.get(user=user).last_used_at > before


def test_a_deal_of_another_session_is_404_with_a_kept_answer(start, api, actor, long_way):
    table, other = start(), start()
    deal = f"/api/deals/{other.deal}/"
    assert api.get(deal).status_code == 200
    viewer = client_with(
        f"Share {share_link_create(session_id=table.id, role='viewer', actor=actor).token}"
    )
    short = viewer.get(deal, HTTP_IF_NONE_MATCH="*")
    assert short.status_code == 404
    same(short, long_way(viewer, deal, HTTP_IF_NONE_MATCH="*"))


@pytest.mark.parametrize(
    "header",
    ["token {key}", "TOKEN {key}", "Token\t{key}", "Token  {key}", "Token {key} extra"],
)
def test_spellings_of_the_token_header_get_the_long_way_s_answer(start, token, long_way, header):
    table = start()
    client = client_with(header.format(key=token))
    path = f"/api/sessions/{table.id}/standings/"

    short = client.get(path, HTTP_IF_NONE_MATCH=tag_for(table))
    long = long_way(client, path, HTTP_IF_NONE_MATCH=tag_for(table))

    same(short, long)


def test_a_session_started_with_microseconds_and_another_zone_is_kept_by_both_ways(
    start, api, django_assert_num_queries
):
    """The key of a kept answer holds the start time: read by the ORM (the long way) and
    by the glance's own statement, it must be the same key, or kept answers are never
    found the short way."""
    import zoneinfo

    table = start()
    moment = timezone.now().astimezone(zoneinfo.ZoneInfo("Asia/Ho_Chi_Minh"))
    Session.objects.filter(pk=table.id).update(started_at=moment.replace(microsecond=123456))
    path = f"/api/sessions/{table.id}/standings/"
    api.get(path)

    with django_assert_num_queries(1):
        assert api.get(path).status_code == 200


def test_a_token_sent_by_a_signed_in_browser_gets_the_long_way_s_headers(
    start, token, user, long_way
):
    """A session cookie besides the token: whatever the long way reads of the session
    (Vary: Cookie) the short way must say too."""
    table = start()
    client = client_with(f"Token {token}")
    client.force_login(user)
    for path in watched_paths(table):
        tag = client.get(path)["ETag"]
        for extra in ({"HTTP_IF_NONE_MATCH": tag}, {}):
            short = client.get(path, **extra)
            same(short, long_way(client, path, **extra))


@pytest.mark.parametrize(
    "accept",
    [
        "application/xml",
        "application/json; indent=2",
        "*/*",
        "application/*",
        "",
        "application/json;q=0, text/html",
        "garbage",
        "application/json; charset=latin-1",
    ],
)
def test_a_kept_answer_is_negotiated_as_the_long_way_negotiates(start, api, long_way, accept):
    table = start()
    path = f"/api/sessions/{table.id}/"
    assert api.get(path).status_code == 200  # kept

    short = api.get(path, HTTP_ACCEPT=accept)
    long = long_way(api, path, HTTP_ACCEPT=accept)

    assert short.status_code == long.status_code
    if not short["Content-Type"].startswith("text/html"):
        same(short, long)


@pytest.mark.parametrize("query", ["?format=json", "?format=api", "?format=xml", "?x=%1F"])
def test_a_kept_answer_with_a_query_is_the_long_way_s(start, api, long_way, query):
    table = start()
    path = f"/api/sessions/{table.id}/standings/{query}"
    api.get(path)

    short = api.get(path)
    long = long_way(api, path)

    assert short.status_code == long.status_code
    if not short["Content-Type"].startswith("text/html"):
        same(short, long)
