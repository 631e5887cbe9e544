"""Who may do what (SPEC 7): every role against every endpoint, with the exact status.

Each endpoint is one test: each role's request runs against the same world in a
savepoint that is rolled back, so one role's write never changes what the next one sees.

Roles: a circle member (token), an account outside the circle, the session's scorer link,
its viewer link, a revoked link, and nobody at all. Bad or missing credentials are 401;
a link asking for more than its role allows is 403; anything outside the caller's reach
is 404, as if it did not exist. (Sign-in, `POST /api/auth/token/`, is open to all.)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal

import pytest
from django.db import transaction
from django.urls import URLPattern, get_resolver, resolve

import scoring
from tests.api.conftest import client_with, db_state
from tracker.access import Actor
from tracker.models import Deal
from tracker.services import (
    api_token_create,
    deal_event_record,
    deal_tap,
    invite_create,
    session_create,
    share_link_create,
    share_link_revoke,
    transfer_mark_paid,
)

pytestmark = pytest.mark.django_db

ROLES = ["member", "stranger", "scorer", "viewer", "revoked", "anonymous"]


@dataclass
class World:
    circle: int
    session: int
    filed: int  # deal 1: a 2 cut, then Alice, Cara, Ben out
    open: int  # deal 2, nothing on it yet
    event: int  # the 2 cut on deal 1
    payment: int  # Dev paid Alice 1.00
    p: dict[str, int]
    links: dict[str, int]
    tokens: dict[str, str]
    api_token: int  # the member's API token's id
    friend: int  # another member of the circle (an account id)
    invite: int
    invite_token: str


@pytest.fixture
def world(user, circle, stranger):
    actor = Actor(user=user)
    session = session_create(
        circle=circle,
        name="Friday",
        players=["Alice", "Ben", "Cara", "Dev"],
        options=scoring.Options(penalties=True),
        actor=actor,
    )
    p = {seat.player.name: seat.player_id for seat in session.seats.select_related("player")}
    filed = session.deals.get()
    deal_event_record(
        deal_id=filed.pk,
        event=scoring.TwoBeaten(
            by=p["Ben"], owner=p["Cara"], beaten_with=scoring.Beater.CUTUP, black=1
        ),
        actor=actor,
    )
    for name in ("Alice", "Cara", "Ben"):
        deal_tap(deal_id=filed.pk, player_id=p[name], actor=actor)
    payment = transfer_mark_paid(
        session_id=session.pk,
        payer_id=p["Dev"],
        payee_id=p["Alice"],
        amount=Decimal("1"),
        actor=actor,
    )
    links = {
        role: share_link_create(session_id=session.pk, role=role, actor=actor)
        for role in ("scorer", "viewer")
    }
    revoked = share_link_create(session_id=session.pk, role="scorer", actor=actor)
    share_link_revoke(link_id=revoked.pk, actor=actor)
    links["scorer"] = share_link_create(session_id=session.pk, role="scorer", actor=actor)
    member_token = api_token_create(user=user)
    friend = type(user).objects.create_user(username="friend", password="x")
    circle.members.add(friend)
    made = invite_create(circle=circle, actor=actor, max_uses=None)
    return World(
        circle=circle.pk,
        session=session.pk,
        filed=filed.pk,
        open=session.deals.get(status="open").pk,
        event=filed.dealevents.get().pk,
        payment=payment.pk,
        p=p,
        links={role: link.pk for role, link in links.items()},
        tokens={
            "member": f"Token {member_token.key}",
            "stranger": f"Token {api_token_create(user=stranger).key}",
            "scorer": f"Share {links['scorer'].token}",
            "viewer": f"Share {links['viewer'].token}",
            "revoked": f"Share {revoked.token}",
        },
        api_token=member_token.token.pk,
        friend=friend.pk,
        invite=made.pk,
        invite_token=made.token,
    )


@dataclass(frozen=True)
class Endpoint:
    method: str
    url: Callable[[World], str]
    body: Callable[[World], dict] | None
    member: int
    stranger: int
    scorer: int
    viewer: int


def event_on_open_deal(world: World) -> str:
    """A mistaken event on the open deal, recorded first, then its URL."""
    from tracker.models import Session

    session = Session.objects.get(pk=world.session)
    user = session.created_by
    state = deal_event_record(
        deal_id=world.open,
        event=scoring.TwoBeaten(
            by=world.p["Alice"], owner=world.p["Dev"], beaten_with=scoring.Beater.BOMB, red=1
        ),
        actor=Actor(user=user),
    )
    return f"/api/deals/{state.deal.pk}/events/{state.events[0].pk}/"


ENDPOINTS = {
    # name: method, url, body, member, stranger, scorer, viewer
    "circles list": Endpoint("get", lambda w: "/api/circles/", None, 200, 200, 403, 403),
    "circle create": Endpoint(
        "post", lambda w: "/api/circles/", lambda w: {"name": "New"}, 201, 201, 403, 403
    ),
    "circle detail": Endpoint(
        "get", lambda w: f"/api/circles/{w.circle}/", None, 200, 404, 403, 403
    ),
    "circle rename": Endpoint(
        "patch",
        lambda w: f"/api/circles/{w.circle}/",
        lambda w: {"name": "Renamed"},
        200,
        404,
        403,
        403,
    ),
    "players list": Endpoint(
        "get", lambda w: f"/api/circles/{w.circle}/players/", None, 200, 404, 403, 403
    ),
    "player create": Endpoint(
        "post",
        lambda w: f"/api/circles/{w.circle}/players/",
        lambda w: {"name": "Eve"},
        201,
        404,
        403,
        403,
    ),
    "player detail": Endpoint(
        "get", lambda w: f"/api/players/{w.p['Alice']}/", None, 200, 404, 403, 403
    ),
    "player rename": Endpoint(
        "patch",
        lambda w: f"/api/players/{w.p['Alice']}/",
        lambda w: {"name": "Alicia"},
        200,
        404,
        403,
        403,
    ),
    "circle export": Endpoint(
        "get", lambda w: f"/api/circles/{w.circle}/export/", None, 200, 404, 403, 403
    ),
    "session ledger csv": Endpoint(
        "get", lambda w: f"/api/sessions/{w.session}/ledger.csv", None, 200, 404, 200, 200
    ),
    "session export": Endpoint(
        "get", lambda w: f"/api/sessions/{w.session}/export/", None, 200, 404, 200, 200
    ),
    "payment details": Endpoint(
        "get", lambda w: f"/api/players/{w.p['Alice']}/payment-details/", None, 200, 404, 403, 403
    ),
    "payment details set": Endpoint(
        "put",
        lambda w: f"/api/players/{w.p['Alice']}/payment-details/",
        lambda w: {"bank_bin": "970436", "account_number": "0011001932418"},
        200,
        404,
        403,
        403,
    ),
    "sessions list": Endpoint("get", lambda w: "/api/sessions/", None, 200, 200, 200, 200),
    "session create": Endpoint(
        "post",
        lambda w: "/api/sessions/",
        lambda w: {"circle": w.circle, "name": "Saturday", "players": ["Alice", "Ben"]},
        201,
        400,  # the circle in the body is not theirs: a bad field, as if it did not exist
        403,
        403,
    ),
    "session detail": Endpoint(
        "get", lambda w: f"/api/sessions/{w.session}/", None, 200, 404, 200, 200
    ),
    "session end": Endpoint(
        "post", lambda w: f"/api/sessions/{w.session}/end/", None, 200, 404, 200, 403
    ),
    "session seating": Endpoint(
        "put",
        lambda w: f"/api/sessions/{w.session}/players/",
        lambda w: {"players": [w.p["Ben"], w.p["Alice"]]},
        200,
        404,
        200,
        403,
    ),
    "circle leaderboard": Endpoint(
        "get", lambda w: f"/api/circles/{w.circle}/leaderboard/", None, 200, 404, 403, 403
    ),
    "circle leaderboard csv": Endpoint(
        "get", lambda w: f"/api/circles/{w.circle}/leaderboard.csv", None, 200, 404, 403, 403
    ),
    "session deals": Endpoint(
        "get", lambda w: f"/api/sessions/{w.session}/deals/", None, 200, 404, 200, 200
    ),
    "standings": Endpoint(
        "get", lambda w: f"/api/sessions/{w.session}/standings/", None, 200, 404, 200, 200
    ),
    "settlement": Endpoint(
        "get", lambda w: f"/api/sessions/{w.session}/settlement/", None, 200, 404, 200, 200
    ),
    "mark paid": Endpoint(
        "post",
        lambda w: f"/api/sessions/{w.session}/settlement/paid/",
        lambda w: {"from": w.p["Dev"], "to": w.p["Ben"], "amount": "2.00"},
        201,
        404,
        201,
        403,
    ),
    "mark unpaid": Endpoint(
        "post",
        lambda w: f"/api/sessions/{w.session}/settlement/unpaid/",
        lambda w: {"from": w.p["Dev"], "to": w.p["Alice"], "amount": "1.00"},
        200,
        404,
        200,
        403,
    ),
    "payments list": Endpoint(
        "get", lambda w: f"/api/sessions/{w.session}/payments/", None, 200, 404, 200, 200
    ),
    "payment record": Endpoint(
        "post",
        lambda w: f"/api/sessions/{w.session}/payments/",
        lambda w: {"from": w.p["Dev"], "to": w.p["Ben"], "amount": "0.50"},
        201,
        404,
        201,
        403,
    ),
    "payment cancel": Endpoint(
        "post",
        lambda w: f"/api/sessions/{w.session}/payments/{w.payment}/cancel/",
        None,
        200,
        404,
        200,
        403,
    ),
    "share links list": Endpoint(
        "get", lambda w: f"/api/sessions/{w.session}/share-links/", None, 200, 404, 403, 403
    ),
    "share link create": Endpoint(
        "post",
        lambda w: f"/api/sessions/{w.session}/share-links/",
        lambda w: {"role": "viewer"},
        201,
        404,
        403,
        403,
    ),
    "share link revoke": Endpoint(
        "post", lambda w: f"/api/share-links/{w.links['viewer']}/revoke/", None, 200, 404, 403, 403
    ),
    "deal detail": Endpoint("get", lambda w: f"/api/deals/{w.filed}/", None, 200, 404, 200, 200),
    "tap": Endpoint(
        "post",
        lambda w: f"/api/deals/{w.open}/taps/",
        lambda w: {"player": w.p["Alice"]},
        201,
        404,
        201,
        403,
    ),
    "undo": Endpoint("post", lambda w: f"/api/deals/{w.open}/undo/", None, 200, 404, 200, 403),
    "events list": Endpoint(
        "get", lambda w: f"/api/deals/{w.filed}/events/", None, 200, 404, 200, 200
    ),
    "event record": Endpoint(
        "post",
        lambda w: f"/api/deals/{w.open}/events/",
        lambda w: {
            "type": "two_beaten",
            "by": w.p["Ben"],
            "owner": w.p["Dev"],
            "with": "bomb",
            "black": 1,
        },
        201,
        404,
        201,
        403,
    ),
    "event remove, open deal": Endpoint("delete", event_on_open_deal, None, 200, 404, 200, 403),
    "event remove, filed deal (a correction)": Endpoint(
        "delete", lambda w: f"/api/deals/{w.filed}/events/{w.event}/", None, 200, 404, 200, 403
    ),
    "end match": Endpoint("post", lambda w: f"/api/deals/{w.open}/end/", None, 200, 404, 200, 403),
    # The same writes by session and deal number (a phone's offline queue): deal 2 is open.
    "tap by number": Endpoint(
        "post",
        lambda w: f"/api/sessions/{w.session}/deals/2/taps/",
        lambda w: {"player": w.p["Alice"]},
        201,
        404,
        201,
        403,
    ),
    "undo by number": Endpoint(
        "post", lambda w: f"/api/sessions/{w.session}/deals/2/undo/", None, 200, 404, 200, 403
    ),
    "event record by number": Endpoint(
        "post",
        lambda w: f"/api/sessions/{w.session}/deals/2/events/",
        lambda w: {
            "type": "two_beaten",
            "by": w.p["Ben"],
            "owner": w.p["Dev"],
            "with": "bomb",
            "black": 1,
        },
        201,
        404,
        201,
        403,
    ),
    # Members and invites: a circle's members only (another account: 404, as if the
    # circle did not exist), never a share link. Accepting an invite is for any account.
    "members list": Endpoint(
        "get", lambda w: f"/api/circles/{w.circle}/members/", None, 200, 404, 403, 403
    ),
    "member remove": Endpoint(
        "delete",
        lambda w: f"/api/circles/{w.circle}/members/{w.friend}/",
        None,
        204,
        404,
        403,
        403,
    ),
    "circle hand over": Endpoint(
        "post",
        lambda w: f"/api/circles/{w.circle}/owner/",
        lambda w: {"user": w.friend},
        200,
        404,
        403,
        403,
    ),
    "invites list": Endpoint(
        "get", lambda w: f"/api/circles/{w.circle}/invites/", None, 200, 404, 403, 403
    ),
    "invite create": Endpoint(
        "post", lambda w: f"/api/circles/{w.circle}/invites/", lambda w: {}, 201, 404, 403, 403
    ),
    "invite revoke": Endpoint(
        "post", lambda w: f"/api/invites/{w.invite}/revoke/", None, 200, 404, 403, 403
    ),
    "invite accept": Endpoint(
        "post",
        lambda w: "/api/invites/accept/",
        lambda w: {"token": w.invite_token},
        200,
        200,  # anyone with the link joins: that is what it is for
        403,
        403,
    ),
    "player claim": Endpoint(
        "post", lambda w: f"/api/players/{w.p['Alice']}/claim/", None, 200, 404, 403, 403
    ),
    "player unclaim": Endpoint(
        "post", lambda w: f"/api/players/{w.p['Alice']}/unclaim/", None, 200, 404, 403, 403
    ),
    # An account's own tokens: anyone signed in has a list of their own; another
    # account's token is not found; a share link is no account.
    "api tokens list": Endpoint("get", lambda w: "/api/auth/tokens/", None, 200, 200, 403, 403),
    "api token revoke": Endpoint(
        "post", lambda w: f"/api/auth/tokens/{w.api_token}/revoke/", None, 204, 404, 403, 403
    ),
    "sign out": Endpoint("post", lambda w: "/api/auth/sign-out/", None, 204, 204, 403, 403),
    "correction": Endpoint(
        "post",
        lambda w: f"/api/deals/{w.filed}/correction/",
        lambda w: {"taps": [w.p["Cara"], w.p["Alice"], w.p["Ben"]], "reason": "Cara first"},
        200,
        404,
        200,
        403,
    ),
}


def expected(endpoint: Endpoint, role: str) -> int:
    if role in ("revoked", "anonymous"):
        return 401
    return getattr(endpoint, role)


def answer(world: World, endpoint: Endpoint, role: str) -> int:
    """The status the role gets; whatever the request changed is rolled back."""
    with transaction.atomic():
        client = client_with(world.tokens.get(role))
        url = endpoint.url(world)
        body = endpoint.body(world) if endpoint.body else None
        response = getattr(client, endpoint.method)(url, body)
        transaction.set_rollback(True)
    if response.status_code >= 400:
        assert response.json()["detail"].endswith("."), response.json()
    return response.status_code


@pytest.mark.parametrize("endpoint", ENDPOINTS.values(), ids=ENDPOINTS.keys())
def test_permission(world, endpoint):
    statuses = {role: answer(world, endpoint, role) for role in ROLES}

    assert statuses == {role: expected(endpoint, role) for role in ROLES}


def test_the_matrix_covers_every_api_endpoint(world):
    api = next(
        pattern
        for pattern in get_resolver().url_patterns
        if not isinstance(pattern, URLPattern) and str(pattern.pattern) == "api/"
    )
    routes = {
        (method, f"api/{pattern.pattern}")
        for pattern in api.url_patterns
        for method in ("get", "post", "put", "patch", "delete")
        if hasattr(pattern.callback.view_class, method) and pattern.name != "auth-token"
    }

    covered = {
        (endpoint.method, resolve(endpoint.url(world)).route) for endpoint in ENDPOINTS.values()
    }

    assert covered == routes


def test_outsiders_see_nothing_of_the_session(world):
    client = client_with(world.tokens["stranger"])

    assert client.get("/api/sessions/").json()["results"] == []
    assert client.get("/api/circles/").json() == []
    response = client.get(f"/api/deals/{world.filed}/")
    assert response.json() == {"code": "not_found", "detail": f"There is no deal {world.filed}."}


def test_viewer_write_is_refused_with_a_sentence(world):
    response = client_with(world.tokens["viewer"]).post(
        f"/api/deals/{world.open}/taps/", {"player": world.p["Alice"]}
    )

    assert response.status_code == 403
    assert response.json() == {
        "code": "viewer_read_only",
        "detail": "A viewer link can only look; a scorer link or an account can record.",
    }
    assert Deal.objects.get(pk=world.open).last_seq == 0


def test_scorer_link_beyond_its_session_scoring_is_refused_with_a_sentence(world):
    response = client_with(world.tokens["scorer"]).get("/api/circles/")

    assert response.status_code == 403
    assert response.json() == {
        "code": "link_out_of_reach",
        "detail": "A share link reaches only its own session's scoring; sign in for this.",
    }


READS = {name: endpoint for name, endpoint in ENDPOINTS.items() if endpoint.method == "get"}


@pytest.mark.parametrize("endpoint", READS.values(), ids=READS.keys())
def test_no_read_changes_anything(world, endpoint):
    before = db_state()

    for role in ROLES:
        client_with(world.tokens.get(role)).get(endpoint.url(world))

    assert db_state() == before


def test_no_page_read_changes_anything(world, user, client):
    client.force_login(user)
    session = f"/sessions/{world.session}"
    pages = [f"/circles/{world.circle}/", *(f"{session}/{page}" for page in ("", "standings/"))]
    pages += [f"{session}/{page}" for page in ("deals/", "deals/1/", "settle/", "share/")]
    before = db_state()

    statuses = [client.get(page).status_code for page in pages]

    assert statuses == [200] * len(pages)
    assert db_state() == before
