"""A first read after its glance (nothing kept at the version) takes the rows the glance
read (`ApiView.watched_session` / `watched_deal`, `ShareLinkAuthentication`, the pages'
`reach`; session 14): for every caller, target and language it answers as the long way
alone does, status, body and headers; the glance's rows load as the ORM's on both
databases; and the edges of the answers built by hand (large totals, nothing owed, every
transfer paid, no players at all). Written by a reviewer of session 14's change."""

from __future__ import annotations

import json
import re
from decimal import Decimal

import pytest
from django.utils import timezone, translation

from tests.api.conftest import client_with
from tests.conftest import values
from tracker import answers, glance
from tracker.access import Actor, access_deal, access_session, link_by_token
from tracker.api.settlement import SettlementOut, settlement_data
from tracker.api.standings import StandingsOut, standings_data
from tracker.models import Deal, Session, StandingTally
from tracker.services import (
    api_token_create,
    deal_tap,
    payment_details_set,
    session_end,
    share_link_create,
    share_link_revoke,
)

pytestmark = pytest.mark.django_db

MOMENTARY = {"Date", "Expires"}


def first_read(client, path, method="get", **extra):
    """A first read: nothing kept at this version (the long way after the glance)."""
    answers.forget_all()
    return getattr(client, method)(path, **extra)


def _content(response) -> bytes:
    # A full page says when it was drawn (`data-synced`) and carries fresh CSRF tokens:
    # neither is part of the answer.
    content = re.sub(rb'data-synced="[^"]*"', b"", response.content)
    return re.sub(rb"[A-Za-z0-9]{32,}", b"<token>", content)


def same(short, long) -> None:
    assert short.status_code == long.status_code, (short.status_code, long.status_code)
    assert _content(short) == _content(long)
    assert {k: v for k, v in short.items() if k not in MOMENTARY} == {
        k: v for k, v in long.items() if k not in MOMENTARY
    }


def paths(session_id: int, deal_id: int) -> list[str]:
    return [
        f"/api/sessions/{session_id}/",
        f"/api/sessions/{session_id}/standings/",
        f"/api/sessions/{session_id}/settlement/",
        f"/api/deals/{deal_id}/",
    ]


def ended_table(start, actor):
    """A session with filed deals, payment details, then ended: every nullable column of
    the session and its deals set (ended_at, ended_by, closed_at, winner, loser...)."""
    table = start()
    for _ in range(3):
        table.tap(table.deal, "Alice", "Ben", "Cara")
    session = Session.objects.get(pk=table.id)
    payment_details_set(
        player=session.seats.order_by("position").first().player,
        link="https://paypal.me/alice",
        actor=actor,
    )
    filed = Deal.objects.filter(session_id=table.id, status=Deal.Status.FILED).first()
    session_end(session_id=table.id, actor=actor)
    return table, filed.pk


# --- Passes: the glance's rows are the long way's for an ended session, closed deals -----


def test_glance_rows_of_an_ended_session_and_a_filed_deal_load_as_the_orm_does(
    start, token, user, actor
):
    """PASSES. The new glance columns (session, circle, deal, link) hold non-null
    datetimes, foreign keys, JSON and booleans once a session ended: loaded as the ORM
    loads them, on SQLite (naive datetimes, 0/1, floats for decimals) and PostgreSQL."""
    table, filed = ended_table(start, actor)
    Session.objects.filter(pk=table.id).update(
        guaransheed=True, penalties=True, stake=Decimal("0.75")
    )
    found = glance.by_token(token, table.id)
    assert values(glance.session_of(found)) == values(access_session(Actor(user=user), table.id))
    reached = access_session(Actor(user=user), table.id)
    read = glance.session_of(found)
    assert read.ended_at is not None and timezone.is_aware(read.ended_at)
    assert type(read.stake) is Decimal and read.stake == reached.stake
    assert read.guaransheed is True and read.penalties is True
    assert values(read.circle) == values(reached.circle)

    found = glance.by_token(token, filed, deal=True)
    deal = glance.deal_of(found)
    assert values(deal) == values(access_deal(Actor(user=user), filed))
    assert deal.closed_at is not None and timezone.is_aware(deal.closed_at)

    link = share_link_create(session_id=table.id, role="viewer", actor=actor)
    by_glance = glance.link_of(glance.by_link(link.token, filed, deal=True))
    checked = link_by_token(link.token)
    assert values(by_glance) == values(checked)
    assert values(by_glance.session) == values(checked.session)


# --- Passes: every first read after a glance answers as the long way, refusals too --------


@pytest.mark.parametrize("method", ["get", "head"])
def test_first_reads_after_a_glance_are_the_long_way_s_for_every_caller(
    start, api, actor, long_way, method, django_user_model, outsider_table
):
    """PASSES. A first read (nothing kept) by a member's token, a scorer and a viewer
    link, a revoked link, a link of another session, a token of another circle, for
    the session's paths and a deal of it, of another session, of another circle, past
    bigint: status, body, headers and JSON `code` as with the glance turned off."""
    table, filed = ended_table(start, actor)
    other = start()
    other_deal = Deal.objects.filter(session_id=other.id).first().pk
    _, theirs = outsider_table
    their_deal = theirs.deals.get().pk
    scorer = share_link_create(session_id=table.id, role="scorer", actor=actor)
    viewer = share_link_create(session_id=table.id, role="viewer", actor=actor)
    revoked = share_link_create(session_id=other.id, role="viewer", actor=actor)
    elsewhere = share_link_create(session_id=other.id, role="scorer", actor=actor)
    share_link_revoke(link_id=revoked.pk, actor=actor)
    stranger = django_user_model.objects.create_user(username="probe", password="x")
    clients = {
        "member": api,
        "scorer": client_with(f"Share {scorer.token}"),
        "viewer": client_with(f"Share {viewer.token}"),
        "revoked": client_with(f"Share {revoked.token}"),
        "elsewhere": client_with(f"Share {elsewhere.token}"),
        "stranger": client_with(f"Token {api_token_create(user=stranger).key}"),
    }
    asked = [
        *paths(table.id, filed),
        f"/api/deals/{other_deal}/",
        f"/api/deals/{their_deal}/",
        *paths(theirs.pk, their_deal),
        *paths(2**63, 2**63),
        *paths(2**63 - 1, 2**63 - 1),
    ]
    statuses = set()
    for name, client in clients.items():
        for path in asked:
            short = first_read(client, path, method)
            answers.forget_all()
            long = long_way(client, path, method)
            same(short, long)
            statuses.add((name, short.status_code))
    assert {("member", 200), ("viewer", 200), ("scorer", 200), ("revoked", 401)} <= statuses
    assert ("stranger", 404) in statuses and ("elsewhere", 404) in statuses


def test_a_first_read_in_vietnamese_is_the_long_way_s(start, api, actor, long_way):
    """PASSES. The hand-built settlement and standings in Vietnamese, after a glance."""
    table, _ = ended_table(start, actor)
    for path in paths(table.id, Deal.objects.filter(session_id=table.id).first().pk):
        short = first_read(api, path, HTTP_ACCEPT_LANGUAGE="vi")
        answers.forget_all()
        same(short, long_way(api, path, HTTP_ACCEPT_LANGUAGE="vi"))


# --- Passes: hand-built answers at the edges the random tests do not reach ---------------


def test_standings_by_hand_for_large_totals_and_no_average(start, actor):
    """PASSES. Large and negative totals, a player who never placed (null average)."""
    table = start()
    session = Session.objects.get(pk=table.id)
    StandingTally.objects.filter(session=session).update(
        points=10**9, net=Decimal("-123456789012.345"), deals=0
    )
    from tracker import selectors

    rows = selectors.session_standings(session)
    for language in ("en", "vi"):
        with translation.override(language):
            by_hand = standings_data(rows)
            by_drf = StandingsOut({"rows": rows}).data
            assert json.dumps(by_hand) == json.dumps(by_drf)


def test_settlement_by_hand_for_a_settled_session_with_nothing_owed(start, actor):
    """PASSES. No transfers, no payments: nothing read for pay options, same answer."""
    table = start()
    session = Session.objects.get(pk=table.id)
    from tracker import selectors

    settlement = selectors.session_settlement(session)
    by_hand = settlement_data(session, settlement, actor)
    by_drf = SettlementOut(
        {
            "currency": session.currency,
            "settled": settlement.settled,
            "open": settlement.open_amount,
            "balances": [],
            "transfers": [],
            "payments": [],
        }
    ).data
    assert json.dumps(by_hand) == json.dumps(by_drf)


# --- Pages: the link's glance reused by `reach` ---------------------------------------


def _htmx(**headers):
    return {"HTTP_HX_REQUEST": "true", **headers}


@pytest.mark.parametrize("role", ["viewer", "scorer"])
def test_a_following_standings_page_by_link_is_the_long_way_s(
    client, make_session, actor, long_way, role
):
    """PASSES. A link's following standings page, nothing kept: the fragment the glance's
    link gives is the long way's, in both languages; a revoked link's 404 too."""
    session, players = make_session()
    deal = session.deals.get()
    for name in ("Alice", "Ben", "Cara"):
        deal_tap(deal_id=deal.pk, player_id=players[name].pk, actor=actor)
    link = share_link_create(session_id=session.pk, role=role, actor=actor)
    path = f"/s/{link.token}/standings/?version=stale"
    for language in ("en", "vi"):
        short = first_read(client, path, HTTP_ACCEPT_LANGUAGE=language, **_htmx())
        answers.forget_all()
        long = long_way(client, path, HTTP_ACCEPT_LANGUAGE=language, **_htmx())
        assert short.status_code == 200
        same(short, long)
    share_link_revoke(link_id=link.pk, actor=actor)
    short = first_read(client, path, **_htmx())
    answers.forget_all()
    long = long_way(client, path, **_htmx())
    assert short.status_code == 404
    same(short, long)


def test_a_member_removed_from_the_circle_is_refused_first_read_or_kept(
    start, api, actor, circle, django_user_model, long_way
):
    """PASSES. A second member reads (answers kept at this version), then is removed:
    their token's glance finds nothing (membership is in its join), and every watched
    path answers 404 with the long way's code and sentence, kept answer or not."""
    from tracker.services import member_remove

    table = start()
    deal = Deal.objects.filter(session_id=table.id).first().pk
    other = django_user_model.objects.create_user(username="second", password="x")
    circle.members.add(other)
    theirs = client_with(f"Token {api_token_create(user=other).key}")
    for path in paths(table.id, deal):
        assert first_read(theirs, path).status_code == 200
        assert theirs.get(path).status_code == 200  # now kept at this version
    member_remove(circle=circle, user_id=other.pk, actor=actor)
    for path in paths(table.id, deal):
        short = theirs.get(path, HTTP_IF_NONE_MATCH="*")
        long = long_way(theirs, path, HTTP_IF_NONE_MATCH="*")
        assert short.status_code == 404
        same(short, long)
        assert short.json()["code"] in ("session_not_found", "not_found") or short.json()


def test_a_deal_id_that_is_also_a_session_id_is_never_taken_for_it(start, api, token, actor):
    """PASSES. Ids of sessions and deals overlap (1, 2, ...): the session glance and the
    deal glance are told apart (`deal_id`), so a deal's read never takes a session's row,
    nor a session's read a deal's glance."""
    start()  # ids overlap: session 1, deal 1...
    second = start()
    deal_of_second = Deal.objects.filter(session_id=second.id).first().pk
    found = glance.by_token(token, deal_of_second, deal=True)
    assert found.session_id == second.id and found.deal_id == deal_of_second
    body = first_read(api, f"/api/deals/{deal_of_second}/").json()
    assert body["id"] == deal_of_second and body["session"] == second.id
    # A session whose id is that deal's id, if there is one, reads as itself.
    if Session.objects.filter(pk=deal_of_second).exists():
        standings = first_read(api, f"/api/sessions/{deal_of_second}/settlement/")
        assert standings.status_code == 200
        assert glance.by_token(token, deal_of_second).deal_id is None


# --- The names and details statement with no players ----------------------------------


def test_pay_options_with_every_transfer_paid_read_nothing(start, actor, django_assert_num_queries):
    """PASSES. Every transfer paid in full: nothing owed, so the statement is not run
    (the guard `session_pay_options` has before `_names_and_details`)."""
    from tracker import selectors
    from tracker.services import transfer_mark_paid

    table = start()
    table.tap(table.deal, "Alice", "Ben", "Cara")
    session = Session.objects.get(pk=table.id)
    for transfer in selectors.session_settlement(session).open_transfers:
        transfer_mark_paid(
            session_id=session.pk,
            payer_id=transfer.payer,
            payee_id=transfer.payee,
            amount=transfer.amount,
            actor=actor,
        )
    transfers = selectors.session_settlement(session).transfers
    assert transfers and all(transfer.paid for transfer in transfers)
    with django_assert_num_queries(0):
        assert selectors.session_pay_options(session, actor, transfers) == {}


def test_names_and_details_of_no_players_is_empty_on_both_databases():
    """No players, no statement: `WHERE p.id IN ()` is SQLite's but a syntax error on
    PostgreSQL. `session_pay_options` calls it only with someone owed; another caller
    might not."""
    from tracker.selectors.settlement import _names_and_details

    assert _names_and_details(set(), set()) == ({}, {})
