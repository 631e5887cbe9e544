"""Recording on a deal through the services: taps, undo, End match."""

import pytest

import scoring
from tests.services.helpers import live_taps, open_deal, snapshot, tap_all
from tracker.errors import Conflict, Invalid, NotFound
from tracker.models import Deal, DealEvent, LedgerLine, Tap
from tracker.services import (
    deal_end,
    deal_event_record,
    deal_tap,
    deal_undo,
    player_create,
)

pytestmark = pytest.mark.django_db


def test_undo_takes_back_the_last_tap_and_keeps_it(make_session, actor):
    session, p = make_session()
    deal = open_deal(session)
    tap_all(deal, p, ["Alice", "Cara"], actor)

    deal_undo(deal_id=deal.pk, actor=actor)

    assert live_taps(deal) == [("Alice", 1)]
    assert Tap.objects.filter(deal=deal).count() == 2  # kept as history


def test_undo_of_filing_tap_reopens_and_removes_empty_next_deal(make_session, actor):
    session, p = make_session()
    deal = open_deal(session)
    tap_all(deal, p, ["Alice", "Cara", "Ben"], actor)
    assert session.deals.count() == 2

    deal_undo(deal_id=deal.pk, actor=actor)

    deal.refresh_from_db()
    assert deal.status == "open"
    assert session.deals.count() == 1
    assert LedgerLine.objects.filter(deal=deal).count() == 0
    assert live_taps(deal) == [("Alice", 1), ("Cara", 2)]


def test_undo_sent_to_empty_next_deal_reaches_back(make_session, actor):
    session, p = make_session()
    first = open_deal(session)
    tap_all(first, p, ["Alice", "Cara", "Ben"], actor)
    second = open_deal(session)

    reopened = deal_undo(deal_id=second.pk, actor=actor)

    assert reopened.deal.pk == first.pk
    assert open_deal(session).pk == first.pk
    assert not Deal.objects.filter(pk=second.pk).exists()
    tap_all(first, p, ["Dev"], actor)  # tap again: a different third
    first.refresh_from_db()
    assert first.loser == p["Ben"]


def test_undo_refused_when_next_deal_has_started(make_session, actor):
    session, p = make_session()
    first = open_deal(session)
    tap_all(first, p, ["Alice", "Cara", "Ben"], actor)
    second = open_deal(session)
    tap_all(second, p, ["Dev"], actor)
    before = snapshot()

    with pytest.raises(Conflict, match="Deal 2 has started"):
        deal_undo(deal_id=first.pk, actor=actor)

    assert snapshot() == before


def test_undo_on_first_empty_deal_is_refused(make_session, actor):
    session, _ = make_session()
    with pytest.raises(Invalid, match="Nothing to undo"):
        deal_undo(deal_id=open_deal(session).pk, actor=actor)


def test_undo_takes_back_an_event(make_session, actor):
    session, p = make_session(options=scoring.Options(guaransheed=True))
    deal = open_deal(session)
    deal_event_record(deal_id=deal.pk, event=scoring.Guaransheed(player=p["Ben"].pk), actor=actor)

    deal_undo(deal_id=deal.pk, actor=actor)

    assert DealEvent.objects.get(deal=deal).undone_at is not None


@pytest.mark.parametrize(
    ("name", "error", "message"),
    [
        ("Alice", Invalid, "Alice is already out (1st)."),
        ("Zed", Invalid, "is not playing this deal"),
    ],
)
def test_tap_errors_change_nothing(make_session, actor, circle, name, error, message):
    session, p = make_session()
    deal = open_deal(session)
    tap_all(deal, p, ["Alice"], actor)
    player = p.get(name) or player_create(circle=circle, name=name)
    before = snapshot()

    with pytest.raises(error, match=message.replace("(", r"\(").replace(")", r"\)")):
        deal_tap(deal_id=deal.pk, player_id=player.pk, actor=actor)

    assert snapshot() == before


def test_tap_on_filed_deal_is_a_conflict(make_session, actor):
    session, p = make_session()
    deal = open_deal(session)
    tap_all(deal, p, ["Alice", "Cara", "Ben"], actor)
    before = snapshot()

    with pytest.raises(Conflict, match="already filed"):
        deal_tap(deal_id=deal.pk, player_id=p["Dev"].pk, actor=actor)

    assert snapshot() == before


def test_tap_on_unknown_deal_is_not_found(actor):
    with pytest.raises(NotFound, match="There is no deal 999999."):
        deal_tap(deal_id=999999, player_id=1, actor=actor)


def test_end_match_scores_partial_podium_and_ends_session(make_session, actor):
    session, p = make_session(players=("X", "Y", "Z"))
    deal = open_deal(session)
    tap_all(deal, p, ["X", "Y"], actor)

    deal_end(deal_id=deal.pk, actor=actor)

    deal.refresh_from_db()
    session.refresh_from_db()
    assert deal.status == "ended"
    assert session.ended_at is not None
    # With two of three out, the untapped Z is known to be the loser and pays.
    assert list(LedgerLine.objects.filter(deal=deal).values_list("payer__name", "payee__name")) == [
        ("Z", "X"),
        ("Z", "Y"),
    ]
    assert session.deals.count() == 1
    with pytest.raises(Conflict):
        deal_tap(deal_id=deal.pk, player_id=p["Z"].pk, actor=actor)


def test_end_match_on_empty_deal_counts_nowhere(make_session, actor):
    session, _ = make_session()
    deal = open_deal(session)

    deal_end(deal_id=deal.pk, actor=actor)

    deal.refresh_from_db()
    assert (deal.status, scoring.counts(scoring.DealStatus(deal.status), deal.winner_id)) == (
        "ended",
        False,
    )


def test_an_undo_through_a_scorer_link_names_the_link(make_session, actor):
    from tracker.access import Actor
    from tracker.services import share_link_create

    session, p = make_session()
    deal = open_deal(session)
    tap_all(deal, p, ["Alice"], actor)
    link = share_link_create(session_id=session.pk, role="scorer", actor=actor)

    deal_undo(deal_id=deal.pk, actor=Actor(link=link))

    tap = Tap.objects.get(deal=deal)
    assert (tap.undone_by, tap.undone_via) == (None, link)
    assert tap.undone_at is not None


def test_end_match_names_who_ended_it(make_session, actor, user):
    from tracker.access import Actor
    from tracker.services import share_link_create

    session, p = make_session()
    link = share_link_create(session_id=session.pk, role="scorer", actor=actor)
    tap_all(open_deal(session), p, ["Alice"], actor)

    deal_end(deal_id=open_deal(session).pk, actor=Actor(link=link))
    session.refresh_from_db()

    assert session.ended_at is not None
    assert (session.ended_by, session.ended_via) == (None, link)
