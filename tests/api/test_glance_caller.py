"""A watched read that goes the long way after its glance (nothing kept at this version
yet) takes the caller the glance read (`glance.token_of`), not a second token check: the
same token and account, field by field, as `api_token_check` gives."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from tests.conftest import values
from tracker import glance
from tracker.models import ApiToken
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


def test_a_first_read_checks_no_token_after_its_glance(start, api, token):
    table = start()  # nothing kept yet: the first read computes the standings

    with CaptureQueriesContext(connection) as sent:
        response = api.get(f"/api/sessions/{table.id}/standings/")

    assert response.status_code == 200 and response.json()["rows"]
    token_table = ApiToken._meta.db_table
    reads = [query["sql"] for query in sent.captured_queries]
    assert len(reads) == 3  # the glance, the session in reach, the running totals
    assert sum(token_table in sql for sql in reads) == 1  # the glance's


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
