"""A watched read that goes the long way after its glance (nothing kept at this version
yet) takes the caller the glance read (`glance.token_of`), not a second token check: the
same token and account, field by field, as `api_token_check` gives; and the session the
glance read with its circle (`glance.session_of`), not a second read of the session in
reach, as `access.access_session` gives them."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from tests.conftest import values
from tracker import glance
from tracker.access import Actor, access_deal, access_session, link_by_token
from tracker.models import ApiToken, Deal, Session
from tracker.services.accounts import api_token_check

pytestmark = pytest.mark.django_db


def test_the_token_a_glance_read_is_the_token_check_s(start, token, user):
    table = start()
    user.first_name, user.email = "Nguyễn Thị Minh Khai", "khai@example.com"
    user.save()

    found = glance.by_token(token, table.id)
    read = glance.token_of(found)
    checked = api_token_check(token)

    assert values(read) == values(checked)
    assert values(read.user) == values(checked.user)
    assert timezone.is_aware(read.last_used_at) and timezone.is_aware(read.user.date_joined)
    assert read.user.is_authenticated and read.user.is_active


def test_the_session_a_glance_read_is_access_session_s(start, token, user):
    table = start()

    found = glance.by_token(token, table.id)
    read = glance.session_of(found)
    reached = access_session(Actor(user=user), table.id)

    assert values(read) == values(reached)
    assert values(read.circle) == values(reached.circle)
    assert timezone.is_aware(read.started_at) and timezone.is_aware(read.circle.created_at)


@pytest.mark.parametrize("path", ["standings", "settlement"])
def test_a_first_read_reads_no_token_nor_session_after_its_glance(start, api, token, path):
    table = start()  # nothing kept yet: the first read computes the answer

    with CaptureQueriesContext(connection) as sent:
        response = api.get(f"/api/sessions/{table.id}/{path}/")

    assert response.status_code == 200
    reads = [query["sql"] for query in sent.captured_queries]
    assert sum(ApiToken._meta.db_table in sql for sql in reads) == 1  # the glance's
    sessions = f'FROM "{Session._meta.db_table}"'
    assert not any(sessions in sql for sql in reads[1:])  # only the glance read it
    if path == "standings":
        assert len(reads) == 2  # the glance, the running totals


@pytest.mark.parametrize("why", ["revoked", "deactivated", "due a touch", "expired"])
def test_a_token_the_glance_does_not_vouch_for_goes_the_long_way(
    start, api, token, user, why, settings
):
    """Whatever the glance does not find, the token check answers as before: 401 for a
    revoked token or a deactivated account, the touch written, the expired refused."""
    table = start()
    stored = ApiToken.objects.get(user=user)
    if why == "revoked":
        stored.delete()
    elif why == "deactivated":
        user.is_active = False
        user.save()
    elif why == "due a touch":
        ApiToken.objects.filter(pk=stored.pk).update(
            last_used_at=timezone.now() - timedelta(hours=2)
        )
    else:
        ApiToken.objects.filter(pk=stored.pk).update(
            last_used_at=timezone.now() - timedelta(days=settings.API_TOKEN_IDLE_DAYS + 1)
        )

    response = api.get(f"/api/sessions/{table.id}/standings/")

    if why == "due a touch":
        assert response.status_code == 200
        assert ApiToken.objects.get(pk=stored.pk).last_used_at > timezone.now() - timedelta(
            minutes=1
        )
    else:
        assert response.status_code == 401
        code = response.json().get("code") or response.json()
        assert code in ("token_not_valid", "token_expired") or "token" in str(code)


def test_the_deal_a_glance_read_is_access_deal_s(start, token, user):
    table = start()
    deal_id = Deal.objects.get(session_id=table.id).pk

    found = glance.by_token(token, deal_id, deal=True)
    read = glance.deal_of(found)
    reached = access_deal(Actor(user=user), deal_id)

    assert found.session_id == table.id and found.deal_id == deal_id
    assert values(read) == values(reached)
    assert values(read.session) == values(reached.session)
    assert timezone.is_aware(read.opened_at)


def test_a_glance_finds_nothing_of_another_circle(start, token, outsider_table):
    _, theirs = outsider_table
    start()
    assert glance.by_token(token, theirs.pk) is None
    assert glance.by_token(token, theirs.deals.get().pk, deal=True) is None


def test_a_first_read_of_a_deal_reads_no_token_deal_nor_session_after_its_glance(start, api, token):
    table = start()
    deal_id = Deal.objects.get(session_id=table.id).pk

    with CaptureQueriesContext(connection) as sent:
        response = api.get(f"/api/deals/{deal_id}/")

    assert response.status_code == 200 and response.json()["id"] == deal_id
    reads = [query["sql"] for query in sent.captured_queries]
    assert sum(ApiToken._meta.db_table in sql for sql in reads) == 1  # the glance's
    for table_name in (Session._meta.db_table, Deal._meta.db_table):
        assert not any(f'FROM "{table_name}" t0' in sql for sql in reads[1:])


@pytest.mark.parametrize("asked", ["its own", "by session", "by deal"])
def test_the_link_a_glance_read_is_link_by_token_s(start, api, asked):
    table = start()
    token = api.post(f"/api/sessions/{table.id}/share-links/", {"role": "scorer"}).json()["token"]
    deal_id = Deal.objects.get(session_id=table.id).pk
    pk, deal = {"its own": (None, False), "by session": (table.id, False)}.get(
        asked, (deal_id, True)
    )

    found = glance.by_link(token, pk, deal=deal)
    read = glance.link_of(found)
    checked = link_by_token(token)

    assert found.role == "scorer" and found.link_id == checked.pk
    assert values(read) == values(checked)
    assert values(read.session) == values(checked.session)
    assert values(read.session.circle) == values(checked.session.circle)
    assert timezone.is_aware(read.created_at) and timezone.is_aware(read.session.started_at)
