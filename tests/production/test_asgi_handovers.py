"""Under ASGI (`make serve`), a request's middleware and view run in one thread.

Django adapts the middleware chain wherever a middleware's mode changes; one that can run
both ways inside a synchronous-only one ran each of its methods by a hand-over of its own
from the event loop to a thread and back. `RequestBodyLimitMiddleware`, synchronous only,
goes last so that the chain is adapted once (tracker/middleware.py). These tests count the
hand-overs, with Django's ASGI test client (`AsyncClient`, the handler `make serve` runs).
"""

from __future__ import annotations

import pytest
from asgiref import sync
from django.test import AsyncClient

from tests.production.conftest import asgi, tap_under_asgi

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def handovers(monkeypatch):
    """A list that gets one entry per call handed from the loop to a thread."""
    calls: list[str] = []
    handed = sync.SyncToAsync.__call__

    async def counting(self, *args, **kwargs):
        calls.append(getattr(self.func, "__qualname__", repr(self.func)))
        return await handed(self, *args, **kwargs)

    monkeypatch.setattr(sync.SyncToAsync, "__call__", counting)
    return calls


# What is handed over now: the request_started signal, the chain, the views' own steps
# (`process_view`, the view, a template response's render) and the response's close. With
# RequestBodyLimitMiddleware in its old place, /healthz made 15: each process_request and
# process_response of the eight middlewares inside it was one more.
MOST = 6


def test_the_floor_hands_the_middleware_over_once(handovers):
    response = asgi(AsyncClient(), "get", "/healthz")

    assert response.status_code == 200
    assert len(handovers) <= MOST, handovers
    assert not [call for call in handovers if "process_request" in call], handovers


def test_a_page_and_an_api_write_are_handed_over_no_more(handovers, make_session, user):
    from tracker.services import api_token_create

    session, players = make_session()
    client = AsyncClient()
    client.force_login(user)
    page = asgi(client, "get", f"/sessions/{session.pk}/standings/")
    assert page.status_code == 200
    on_a_page = len(handovers)

    handovers.clear()
    deal = session.deals.get()
    token = api_token_create(user=user).key
    tapped = tap_under_asgi(token, deal.pk, players["Alice"].pk, "k-1")
    assert tapped.status_code == 201, tapped.content

    assert on_a_page <= MOST and len(handovers) <= MOST, (on_a_page, handovers)
