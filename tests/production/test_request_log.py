"""One JSON line per request on `squarescores.requests` (tracker.middleware)."""

import json
import logging
import secrets

import pytest
from django.test import Client

from tests.production.conftest import Keep
from tracker.logs import JsonLinesFormatter
from tracker.models import ShareLink
from tracker.services import api_token_create

pytestmark = pytest.mark.django_db


def only_fields(records):
    assert len(records) == 1
    fields = dict(records[0].fields)
    assert fields.pop("duration_ms") >= 0
    return fields


def test_request_log_line_for_anonymous_request(client, request_log):
    client.get("/healthz")

    assert only_fields(request_log) == {
        "method": "GET",
        "path": "/healthz",
        "status": 200,
        "user": None,
        "share_link": None,
        "remote_addr": "127.0.0.1",
    }


def test_request_log_formats_as_one_json_line(client, request_log):
    client.get("/healthz", headers={"X-Forwarded-For": "203.0.113.9"})

    line = JsonLinesFormatter().format(request_log[0])

    assert "\n" not in line
    parsed = json.loads(line)
    assert parsed.pop("time").endswith("+00:00")
    assert parsed.pop("duration_ms") >= 0
    assert parsed == {
        "level": "INFO",
        "logger": "squarescores.requests",
        "message": "GET /healthz 200",
        "method": "GET",
        "path": "/healthz",
        "status": 200,
        "user": None,
        "share_link": None,
        "remote_addr": "127.0.0.1",
        "forwarded_for": "203.0.113.9",
    }


@pytest.mark.urls("tests.production.urls")
def test_request_log_names_the_signed_in_user(client, user, request_log):
    client.force_login(user)

    client.get("/who/")

    assert only_fields(request_log)["user"] == user.pk


def test_request_log_does_not_load_an_unused_user(
    client, user, request_log, django_assert_num_queries
):
    client.force_login(user)

    with django_assert_num_queries(1):  # the health check's SELECT 1 only
        client.get("/healthz")

    assert only_fields(request_log)["user"] is None


def test_request_log_names_the_share_link_of_an_api_call(make_session, request_log):
    session, _ = make_session()
    link = ShareLink.objects.create(session=session, role="viewer", token=secrets.token_urlsafe(32))
    viewer = Client(headers={"Authorization": f"Share {link.token}"})

    viewer.get(f"/api/sessions/{session.pk}/")

    fields = only_fields(request_log)
    assert (fields["share_link"], fields["user"]) == (link.pk, None)


def test_request_log_names_who_asked_when_the_api_says_not_modified_the_short_way(
    make_session, user, request_log
):
    """A 304 from a glance (`tracker.glance`) reads ids only, and the log still says who."""
    session, _ = make_session()
    link = ShareLink.objects.create(session=session, role="viewer", token=secrets.token_urlsafe(32))
    callers = {
        "link": Client(headers={"Authorization": f"Share {link.token}"}),
        "token": Client(headers={"Authorization": f"Token {api_token_create(user=user).key}"}),
    }
    path = f"/api/sessions/{session.pk}/standings/"

    said = {}
    for name, caller in callers.items():
        tag = caller.get(path)["ETag"]
        request_log.clear()
        assert caller.get(path, headers={"If-None-Match": tag}).status_code == 304
        fields = only_fields(request_log)
        said[name] = (fields["status"], fields["user"], fields["share_link"])

    assert said == {"link": (304, None, link.pk), "token": (304, user.pk, None)}


def test_request_log_names_the_caller_of_a_kept_answer(make_session, user, request_log):
    """The next phone's answer, kept at this version, comes from a glance too."""
    session, _ = make_session()
    link = ShareLink.objects.create(session=session, role="viewer", token=secrets.token_urlsafe(32))
    token = Client(headers={"Authorization": f"Token {api_token_create(user=user).key}"})
    viewer = Client(headers={"Authorization": f"Share {link.token}"})
    path = f"/api/sessions/{session.pk}/standings/"

    said = []
    for client in (token, viewer):
        client.get(path)
        request_log.clear()
        assert client.get(path).status_code == 200
        fields = request_log[-1].fields
        said.append((fields["status"], fields["user"], fields["share_link"]))

    assert said == [(200, user.pk, None), (200, None, link.pk)]


def test_request_log_hides_share_link_tokens_in_paths(client, request_log):
    token = secrets.token_urlsafe(32)

    client.get(f"/s/{token}/")

    fields = only_fields(request_log)
    assert fields["path"] == "/s/<token>/"
    assert token not in JsonLinesFormatter().format(request_log[0])


def test_django_error_log_hides_share_link_tokens(client):
    """Django logs every 4xx and 5xx with its path ("Not Found: /s/<token>/"); the
    console handler's filter takes the token out."""
    console = logging.getLogger("django").handlers[0]
    keep = Keep()
    logging.getLogger("django.request").addHandler(keep)
    token = secrets.token_urlsafe(32)
    try:
        client.get(f"/s/{token}/")
    finally:
        logging.getLogger("django.request").removeHandler(keep)

    assert len(keep.records) == 1
    record = keep.records[0]
    assert console.filter(record)
    assert console.format(record).endswith(": /s/<token>/")
