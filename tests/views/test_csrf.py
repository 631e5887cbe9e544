"""A page write refused by Django's CSRF check is said like every other refusal: a
sentence in the reader's language and the code `csrf_failed`, and nothing saved."""

import pytest
from django.test import Client

from tests.views.helpers import open_deal
from tests.views.test_tap import url
from tracker.models import Tap

pytestmark = pytest.mark.django_db


@pytest.fixture
def strict(user):
    """A signed-in browser whose forms carry no CSRF token (a stale page, another site)."""
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    return client


def tap_without_token(client, session, player, **headers):
    data = {"deal": open_deal(session).pk, "player": player.pk}
    return client.post(url(session, "tap_player"), data, **headers)


def test_a_page_write_without_its_token_is_refused_with_a_sentence(strict, table):
    session, players = table

    response = tap_without_token(strict, session, players["Alice"])

    assert response.status_code == 403
    assert "This page was open too long" in response.content.decode()
    assert "CSRF verification failed" not in response.content.decode()
    assert not Tap.objects.exists()


def test_the_offline_queue_is_told_the_code(strict, table):
    session, players = table

    response = tap_without_token(strict, session, players["Alice"], HTTP_ACCEPT="application/json")

    assert response.status_code == 403
    assert response.json()["code"] == "csrf_failed"
    assert "load the page again" in response.json()["detail"]
    assert not Tap.objects.exists()


def test_the_refusal_is_said_in_vietnamese(strict, table):
    session, players = table

    response = tap_without_token(
        strict,
        session,
        players["Alice"],
        HTTP_ACCEPT="application/json",
        HTTP_ACCEPT_LANGUAGE="vi",
    )

    assert response.json()["detail"].startswith("Trang này mở quá lâu")


def test_an_htmx_write_loads_the_page_again_which_says_why(strict, table):
    """htmx swaps no 403 and a retry would send the same stale token: the tap screen is
    loaded again (a fresh token) and says nothing was saved (found by a reviewer)."""
    session, players = table

    response = tap_without_token(strict, session, players["Alice"], HTTP_HX_REQUEST="true")

    assert response.status_code == 403
    assert response["HX-Refresh"] == "true"
    assert not Tap.objects.exists()
    again = strict.get(url(session))
    assert "it has been loaded again: tap once more" in again.content.decode()
    assert "tap once more" not in strict.get(url(session)).content.decode()  # said once
