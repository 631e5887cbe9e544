"""Services through the models: undo, End match, corrections, errors, constraints."""

import io
from decimal import Decimal

import pytest
from django.core.management import CommandError, call_command
from django.db import IntegrityError, transaction

import scoring
from tracker.errors import Conflict, Invalid, NotFound
from tracker.models import Correction, Deal, DealEvent, LedgerLine, Session, Tap
from tracker.services import (
    deal_correct,
    deal_end,
    deal_event_record,
    deal_event_remove,
    deal_tap,
    deal_undo,
    player_create,
    players_seat,
    session_create,
)

pytestmark = pytest.mark.django_db


def open_deal(session):
    return session.deals.get(status=Deal.Status.OPEN)


def tap_all(deal, players, names, actor):
    for name in names:
        deal_tap(deal_id=deal.pk, player_id=players[name].pk, actor=actor)


def live_taps(deal):
    return list(
        Tap.objects.filter(deal=deal, undone_at__isnull=True)
        .order_by("seq")
        .values_list("player__name", "place")
    )


def snapshot():
    """Everything a refused action must leave untouched."""
    return (
        list(Deal.objects.order_by("pk").values_list("pk", "status", "winner", "loser")),
        list(Tap.objects.order_by("pk").values_list("pk", "undone_at")),
        list(DealEvent.objects.order_by("pk").values_list("pk", "undone_at")),
        list(LedgerLine.objects.order_by("pk").values_list("pk", "amount")),
    )


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


def test_correction_recomputes_and_keeps_an_audit_record(make_session, actor):
    session, p = make_session()
    deal = open_deal(session)
    tap_all(deal, p, ["Alice", "Cara", "Ben"], actor)
    following = open_deal(session)

    deal_correct(
        deal_id=deal.pk,
        taps=[p["Ben"].pk, p["Cara"].pk, p["Dev"].pk],
        reason="Ben went out first",
        actor=actor,
    )

    deal.refresh_from_db()
    assert deal.loser == p["Alice"]
    assert live_taps(deal) == [("Ben", 1), ("Cara", 2), ("Dev", 3)]
    payers = set(LedgerLine.objects.filter(deal=deal).values_list("payer__name", flat=True))
    assert payers == {"Alice"}
    correction = Correction.objects.get(deal=deal)
    assert correction.reason == "Ben went out first"
    assert correction.before["points"] == {
        str(p["Alice"].pk): 3,
        str(p["Ben"].pk): 1,
        str(p["Cara"].pk): 2,
        str(p["Dev"].pk): 0,
    }
    assert Tap.objects.filter(deal=deal, correction=correction).count() == 3
    following.refresh_from_db()
    assert (following.dealer, following.leader) == (p["Alice"], p["Ben"])


def test_correction_that_leaves_deal_unfinished_is_refused(make_session, actor):
    session, p = make_session()
    deal = open_deal(session)
    tap_all(deal, p, ["Alice", "Cara", "Ben"], actor)
    before = snapshot()

    with pytest.raises(Invalid, match="unfinished"):
        deal_correct(deal_id=deal.pk, taps=[p["Ben"].pk], actor=actor)

    assert snapshot() == before


def test_correction_of_open_deal_is_a_conflict(make_session, actor):
    session, _ = make_session()
    with pytest.raises(Conflict):
        deal_correct(deal_id=open_deal(session).pk, taps=[], actor=actor)


def test_hand_after_filing_under_loser_pays_adds_penalties(make_session, actor):
    session, p = make_session(options=scoring.Options(penalties=True))
    deal = open_deal(session)
    tap_all(deal, p, ["Alice", "Cara", "Ben"], actor)

    hand = scoring.Hand(player=p["Dev"].pk, cards=5, red_twos=1)
    deal_event_record(deal_id=deal.pk, event=hand, actor=actor)

    reasons = list(
        LedgerLine.objects.filter(deal=deal).values_list(
            "payer__name", "payee__name", "amount", "reason"
        )
    )
    assert reasons[-1] == ("Dev", "Alice", Decimal("2.000"), "unused_red_two")
    assert Correction.objects.filter(deal=deal).count() == 1


def test_event_removed_from_filed_deal_is_a_correction(make_session, actor):
    session, p = make_session(options=scoring.Options(penalties=True))
    deal = open_deal(session)
    two = scoring.TwoBeaten(
        by=p["Ben"].pk, owner=p["Cara"].pk, beaten_with=scoring.Beater.BOMB, black=1
    )
    deal_event_record(deal_id=deal.pk, event=two, actor=actor)
    tap_all(deal, p, ["Alice", "Cara", "Ben"], actor)
    event = DealEvent.objects.get(deal=deal)
    assert LedgerLine.objects.filter(deal=deal, reason="two_beaten").count() == 1

    deal_event_remove(deal_id=deal.pk, event_id=event.pk, actor=actor)

    assert LedgerLine.objects.filter(deal=deal, reason="two_beaten").count() == 0
    assert DealEvent.objects.filter(deal=deal, undone_at__isnull=True).count() == 0
    assert Correction.objects.filter(deal=deal).count() == 1


def test_players_change_between_deals(make_session, actor):
    session, p = make_session()
    deal = open_deal(session)
    tap_all(deal, p, ["Alice", "Cara", "Ben"], actor)

    players_seat(session_id=session.pk, players=["Alice", "Ben", "Cara", "Dev", "Eve"], actor=actor)

    following = open_deal(session)
    assert following.deal_players.count() == 5
    assert following.leader is None  # a changed table: lowest card leads again
    assert following.dealer == p["Dev"]


def test_players_cannot_change_mid_deal(make_session, actor):
    session, p = make_session()
    tap_all(open_deal(session), p, ["Alice"], actor)
    with pytest.raises(Conflict, match="between deals"):
        players_seat(session_id=session.pk, players=["Alice", "Ben"], actor=actor)


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"stake": "0"}, "more than 0"),
        ({"stake": "1.234"}, "2 decimal places"),
        ({"stake": "1000000.01"}, "at most 1,000,000"),
        ({"stake": "abc"}, "a number"),
        ({"currency": "US"}, "3-letter code"),
        ({"format": "podium", "stake_rule": "per_card"}, "winner takes all"),
        ({"stake_rule": "none", "options": scoring.Options(penalties=True)}, "no money moves"),
        ({"options": scoring.Options(instant_wins=True, trading=True)}, "cannot be on together"),
        ({"players": ["Alice"]}, "2 to 8 players"),
        ({"players": ["Alice", "alice"]}, "seated twice"),
        ({"hand_size": 17}, "13 cards"),
    ],
)
def test_session_create_refuses_bad_rules(circle, actor, overrides, message):
    arguments = {"players": ["Alice", "Ben", "Cara", "Dev"], **overrides}

    with pytest.raises(Invalid, match=message):
        session_create(circle=circle, name="Bad", actor=actor, **arguments)

    assert Session.objects.count() == 0


def test_database_refuses_two_live_taps_in_one_place(make_session, actor):
    session, p = make_session()
    deal = open_deal(session)
    tap_all(deal, p, ["Alice"], actor)

    with pytest.raises(IntegrityError), transaction.atomic():
        Tap.objects.create(deal=deal, seq=99, player=p["Ben"], place=1)


def test_database_refuses_second_live_tap_of_a_player(make_session, actor):
    session, p = make_session()
    deal = open_deal(session)
    tap_all(deal, p, ["Alice"], actor)

    with pytest.raises(IntegrityError), transaction.atomic():
        Tap.objects.create(deal=deal, seq=99, player=p["Alice"], place=2)


def test_database_refuses_non_positive_amounts(make_session, actor):
    session, p = make_session()
    deal = open_deal(session)
    with pytest.raises(IntegrityError), transaction.atomic():
        LedgerLine.objects.create(
            deal=deal,
            session=session,
            position=1,
            payer=p["Ben"],
            payee=p["Alice"],
            amount=0,
            reason="loser_pays",
        )


def test_database_refuses_non_positive_stake(make_session):
    session, _ = make_session()
    with pytest.raises(IntegrityError), transaction.atomic():
        Session.objects.filter(pk=session.pk).update(stake=Decimal("0"))


def test_correction_can_add_a_forgotten_guaransheed(make_session, actor):
    session, p = make_session(options=scoring.Options(guaransheed=True))
    deal = open_deal(session)
    tap_all(deal, p, ["Alice", "Cara", "Ben"], actor)

    deal_correct(
        deal_id=deal.pk,
        add_events=[scoring.Guaransheed(player=p["Alice"].pk)],
        reason="Alice had declared",
        actor=actor,
    )

    lines = LedgerLine.objects.filter(deal=deal).values_list("payer__name", "payee__name", "reason")
    assert list(lines)[3:] == [
        ("Ben", "Alice", "guaransheed_won"),
        ("Cara", "Alice", "guaransheed_won"),
        ("Dev", "Alice", "guaransheed_won"),
    ]
    assert live_taps(deal) == [("Alice", 1), ("Cara", 2), ("Ben", 3)]


def test_running_totals_follow_filing_undo_and_correction(make_session, actor):
    from tracker.selectors import session_standings, standings_by_aggregate

    session, p = make_session(options=scoring.Options(penalties=True))
    deal = open_deal(session)
    two = scoring.TwoBeaten(
        by=p["Ben"].pk, owner=p["Cara"].pk, beaten_with=scoring.Beater.BOMB, red=1
    )
    deal_event_record(deal_id=deal.pk, event=two, actor=actor)
    tap_all(deal, p, ["Alice", "Cara", "Ben"], actor)
    assert session_standings(session) == standings_by_aggregate(session)

    deal_undo(deal_id=deal.pk, actor=actor)
    assert session_standings(session) == standings_by_aggregate(session)
    assert {row.name: row.points for row in session_standings(session)} == dict.fromkeys(
        ["Alice", "Ben", "Cara", "Dev"], 0
    )

    tap_all(deal, p, ["Dev"], actor)
    deal_correct(deal_id=deal.pk, taps=[p["Ben"].pk, p["Alice"].pk, p["Dev"].pk], actor=actor)
    deal_end(deal_id=open_deal(session).pk, actor=actor)

    assert session_standings(session) == standings_by_aggregate(session)
    assert [(row.name, row.points, row.twos_beaten_made) for row in session_standings(session)] == [
        ("Ben", 3, 1),
        ("Alice", 2, 0),
        ("Dev", 1, 0),
        ("Cara", 0, 0),
    ]


def test_rebuild_standings_command_restores_lost_running_totals(make_session, actor):
    from tracker.models import StandingTally
    from tracker.selectors import session_standings, standings_by_aggregate

    session, p = make_session()
    tap_all(open_deal(session), p, ["Alice", "Cara", "Ben"], actor)
    tap_all(open_deal(session), p, ["Dev", "Alice", "Cara"], actor)
    expected = standings_by_aggregate(session)
    StandingTally.objects.all().delete()
    out = io.StringIO()

    call_command("rebuild_standings", "--session", str(session.pk), stdout=out)

    assert session_standings(session) == expected
    assert {row.name: row.points for row in expected} == {"Alice": 5, "Cara": 3, "Dev": 3, "Ben": 1}
    assert out.getvalue() == "Rebuilt the standings of 1 session.\n"


def test_rebuild_standings_names_a_session_that_does_not_exist(make_session):
    make_session()

    with pytest.raises(CommandError, match="There is no session 999."):
        call_command("rebuild_standings", "--session", "999")


def test_payment_marks_name_the_scorer_link_that_made_them(make_session, actor, user):
    from tracker.access import Actor
    from tracker.services import share_link_create, transfer_mark_paid, transfer_mark_unpaid

    session, p = make_session()
    tap_all(open_deal(session), p, ["Alice", "Cara", "Ben"], actor)  # Dev pays 1.00 each
    link = share_link_create(session_id=session.pk, role="scorer", actor=actor)
    transfer = {"payer_id": p["Dev"].pk, "payee_id": p["Alice"].pk, "amount": Decimal("1.00")}

    payment = transfer_mark_paid(session_id=session.pk, **transfer, actor=Actor(link=link))
    transfer_mark_unpaid(session_id=session.pk, **transfer, actor=actor)
    payment.refresh_from_db()

    assert (payment.recorded_by, payment.recorded_via) == (None, link)
    assert (payment.cancelled_by, payment.cancelled_via) == (user, None)
    assert payment.cancelled_at is not None


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
