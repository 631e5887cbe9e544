"""Random play through the services, checked against the rules after every step.

Each example starts a session under a random valid rule set and sends it up to 40 random
actions: taps (with Got to Get In and loser taps), 2s and cutups beaten, hands,
Guaransheeds, instant wins, undo, End match, corrections, event removals and a change of
players. A refusal (`Refusal`) is a fine answer. After every action:

(a) every closed deal's stored ledger equals `scoring.play(deal_facts(deal)).ledger`, line
    for line and in order; an open deal has no stored lines;
(b) the session's balances sum to exactly Decimal 0;
(c) deals are numbered 1..n, and there is one open deal (the last) until the session ends
    and none after;
(d) each deal's status, winner, loser, and every player's place and points, equal the
    recomputation, and live taps hold the places scoring gives them;
(e) an open deal with nothing on it opens as `scoring.opening` says for its players after
    the deal before it (dealer, leader, trading reminders).

FUZZ_EXAMPLES=500 runs a longer search than the default 20 examples (about 400 actions).
"""

from __future__ import annotations

import os
from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Prefetch
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

import scoring
from tracker.access import Actor
from tracker.errors import Refusal
from tracker.models import Deal, DealEvent, Session, Tap
from tracker.records import deal_facts
from tracker.selectors import session_balances, session_standings, standings_by_aggregate
from tracker.services import (
    circle_create,
    deal_correct,
    deal_end,
    deal_event_record,
    deal_event_remove,
    deal_tap,
    deal_undo,
    players_seat,
    session_create,
)

pytestmark = pytest.mark.django_db

NAMES = ("Alice", "Ben", "Cara", "Dev", "Eve", "Finn")
STAKES = ("0.01", "0.05", "0.25", "0.50", "1", "1.25", "3", "7.77")
# Taps are most of a real table's traffic; End match closes the session, so it is rare.
ACTIONS = (
    ["tap"] * 14
    + ["two_beaten"] * 3
    + ["cutup_beaten", "guaransheed", "instant_win", "event_remove", "seat", "end"]
    + ["hand"] * 3
    + ["undo"] * 3
    + ["correct"] * 3
    + ["correct_nothing"] * 2
)
# Loser pays is the usual game, so it comes up twice as often as each of the others.
STAKE_RULES = [scoring.StakeRule.LOSER_PAYS, *scoring.StakeRule]
MAX_STEPS = 40


@st.composite
def tables(draw: st.DrawFn) -> dict:
    """session_create arguments for a valid rule set."""
    stake_rule = draw(st.sampled_from(STAKE_RULES))
    needs_hands = stake_rule in (scoring.StakeRule.PER_CARD, scoring.StakeRule.PRO_PLAY)
    moves_money = stake_rule is not scoring.StakeRule.NONE
    size = draw(st.integers(2, len(NAMES)))
    # Instant wins are for one pack: a session cannot start with them at 5 to 8 players
    # (a seating change later may still take the table there).
    instant_wins = size <= 4 and draw(st.booleans())
    options = scoring.Options(
        guaransheed=moves_money and draw(st.booleans()),
        got_to_get_in=moves_money and draw(st.booleans()),
        penalties=moves_money and draw(st.booleans()),
        instant_wins=instant_wins,
        trading=not instant_wins and draw(st.booleans()),
    )
    return {
        "players": list(NAMES[:size]),
        "format": (
            scoring.Format.WINNER_TAKES_ALL
            if needs_hands
            else draw(st.sampled_from(list(scoring.Format)))
        ),
        "stake_rule": stake_rule,
        "stake": draw(st.sampled_from(STAKES)),
        "options": options,
    }


# --- The invariants -------------------------------------------------------------------


def check_session(session: Session) -> None:
    session.refresh_from_db()
    deals = list(
        session.deals.order_by("number")
        .select_related("session")
        .prefetch_related(
            "deal_players",
            Prefetch("ledger_lines", to_attr="stored_ledger"),
            Prefetch(
                "taps",
                queryset=Tap.objects.filter(undone_at__isnull=True).prefetch_related("not_played"),
                to_attr="live_taps",
            ),
            Prefetch(
                "dealevents",
                queryset=DealEvent.objects.filter(undone_at__isnull=True),
                to_attr="live_events",
            ),
        )
    )

    # (c) contiguous numbers; one open deal, the last, exactly while the session is on.
    assert [deal.number for deal in deals] == list(range(1, len(deals) + 1))
    open_numbers = [deal.number for deal in deals if deal.status == Deal.Status.OPEN]
    if session.ended_at is None:
        assert open_numbers == [len(deals)]
    else:
        assert open_numbers == []

    previous: tuple[scoring.DealFacts, scoring.DealResult] | None = None
    for deal in deals:
        rows = sorted([*deal.live_taps, *deal.live_events], key=lambda row: row.seq)
        facts = deal_facts(deal, rows)
        result = scoring.play(facts)

        # (e) the empty open deal's opening follows the table and the deal before it.
        if deal.status == Deal.Status.OPEN and not rows and previous is not None:
            opening = scoring.opening(
                rules=session.rules,
                players=list(facts.players),
                previous_players=list(previous[0].players),
                previous=previous[1],
            )
            stored = (deal.dealer_id, deal.leader_id, deal.trading)
            trading = [vars(reminder) for reminder in opening.trading]
            assert stored == (opening.dealer, opening.leader, trading)
        previous = (facts, result)

        # (d) what the deal row and its players hold is what the facts come to.
        assert (deal.status, deal.winner_id, deal.loser_id) == (
            result.status.value,
            result.winner,
            result.loser,
        )
        assert {
            player.player_id: (player.place, player.points) for player in deal.deal_players.all()
        } == {
            player: (result.places.get(player), result.points.get(player, 0))
            for player in facts.players
        }
        assert {tap.player_id: tap.place for tap in deal.live_taps} == {
            tap.player_id: result.places[tap.player_id] for tap in deal.live_taps
        }

        # (a) the stored ledger is a fresh recomputation, line for line.
        stored = [
            (line.payer_id, line.payee_id, line.amount, line.reason)
            for line in sorted(deal.stored_ledger, key=lambda line: line.position)
        ]
        expected = [
            (line.payer, line.payee, line.amount, line.reason.value) for line in result.ledger
        ]
        assert stored == (expected if result.closed else [])

    # (b) money only moves between players: the balances sum to exactly zero.
    assert sum(session_balances(session).values(), Decimal(0)) == Decimal(0)
    # The running totals the services keep equal the sums over every deal.
    assert session_standings(session) == standings_by_aggregate(session)


# --- Random actions -------------------------------------------------------------------


def act(data: st.DataObject, session: Session, actor: Actor) -> None:
    """Draw one action and send it to the services; `note` says what it was."""
    deals = list(session.deals.order_by("number"))
    open_deals = [deal for deal in deals if deal.status == Deal.Status.OPEN]
    # Mostly the open deal, as at a table; sometimes any deal, to try what is refused.
    if open_deals and data.draw(st.integers(0, 9)) > 0:
        deal = open_deals[0]
    else:
        deal = data.draw(st.sampled_from(deals))
    seated = list(deal.deal_players.order_by("seat").values_list("player_id", flat=True))
    everyone = list(session.circle.players.order_by("pk").values_list("pk", flat=True))
    # Now and then someone who is not at this deal.
    player = st.sampled_from(seated) | st.sampled_from(everyone)
    two_players = st.lists(player, min_size=2, max_size=2)
    action = data.draw(st.sampled_from(ACTIONS))
    described = f"{action} on deal {deal.number}"

    if action == "tap":
        tapped = data.draw(player)
        not_played = data.draw(st.lists(st.sampled_from(seated), max_size=2, unique=True))
        if not session.got_to_get_in and data.draw(st.integers(0, 4)) > 0:
            not_played = []
        loser = data.draw(st.integers(0, 9)) == 0
        note(f"{described}: {tapped} not_played={not_played} loser={loser}")
        deal_tap(deal_id=deal.pk, player_id=tapped, not_played=not_played, loser=loser, actor=actor)
    elif action in ("two_beaten", "cutup_beaten", "hand", "guaransheed", "instant_win"):
        event = data.draw(event_of(action, player, two_players))
        note(f"{described}: {event}")
        deal_event_record(deal_id=deal.pk, event=event, actor=actor)
    elif action == "undo":
        note(described)
        deal_undo(deal_id=deal.pk, actor=actor)
    elif action == "end":
        note(described)
        deal_end(deal_id=deal.pk, actor=actor)
    elif action == "correct":
        closed = [deal for deal in deals if deal.status != Deal.Status.OPEN]
        target = data.draw(st.sampled_from(closed)) if closed else deal
        taps = data.draw(st.none() | st.permutations(seated).flatmap(st_prefixes))
        loser = data.draw(st.none() | player)
        events = list(target.dealevents.filter(undone_at__isnull=True).values_list("pk", flat=True))
        removed = data.draw(st.lists(st.sampled_from(events), unique=True)) if events else []
        kinds = ("two_beaten", "cutup_beaten", "hand", "guaransheed")
        added = data.draw(
            st.lists(
                st.sampled_from(kinds).flatmap(lambda kind: event_of(kind, player, two_players)),
                max_size=1,
            )
        )
        note(
            f"correct deal {target.number}: taps={taps} loser={loser} add={added} remove={removed}"
        )
        deal_correct(
            deal_id=target.pk,
            taps=taps,
            loser=loser,
            add_events=added,
            remove_event_ids=removed,
            reason="fuzz",
            actor=actor,
        )
    elif action == "correct_nothing":
        closed = [deal for deal in deals if deal.status != Deal.Status.OPEN]
        if not closed:
            return
        target = data.draw(st.sampled_from(closed))
        note(f"correct deal {target.number} with no change")
        before = outcome(target)
        try:
            deal_correct(deal_id=target.pk, reason="no change", actor=actor)
        except Refusal as refusal:
            raise AssertionError(
                f"A correction that changes nothing was refused: {refusal}"
            ) from None
        assert outcome(target) == before
    elif action == "event_remove":
        events = list(deal.dealevents.values_list("pk", flat=True))
        if not events:
            return
        event_id = data.draw(st.sampled_from(events))
        note(f"{described}: event {event_id}")
        deal_event_remove(deal_id=deal.pk, event_id=event_id, actor=actor)
    else:  # seat
        names = data.draw(st.lists(st.sampled_from(NAMES), min_size=2, max_size=6, unique=True))
        note(f"seat {names}")
        players_seat(session_id=session.pk, players=names, actor=actor)


def outcome(deal: Deal) -> tuple:
    """What a correction that changes nothing must leave as it was. The ledger's lines
    are compared as a set: a correction retells the deal in a fixed order (declarations,
    2s and cutups beaten, taps, hands), which can list the same lines in another order."""
    deal.refresh_from_db()
    return (
        deal.status,
        deal.winner_id,
        deal.loser_id,
        list(deal.deal_players.order_by("seat").values_list("player_id", "place", "points")),
        sorted(deal.ledger_lines.values_list("payer_id", "payee_id", "amount", "reason")),
    )


def st_prefixes(order: list[int]) -> st.SearchStrategy[list[int]]:
    """A tap order: the first few players of a permutation."""
    return st.integers(0, len(order)).map(lambda size: list(order[:size]))


def event_of(
    kind: str, player: st.SearchStrategy[int], two_players: st.SearchStrategy[list[int]]
) -> st.SearchStrategy[scoring.Record]:
    if kind == "two_beaten":
        return st.builds(
            lambda pair, beater, black, red: scoring.TwoBeaten(
                by=pair[0], owner=pair[1], beaten_with=beater, black=black, red=red
            ),
            two_players,
            st.sampled_from(list(scoring.Beater)),
            st.integers(0, 3),
            st.integers(0, 3),
        )
    if kind == "cutup_beaten":
        return two_players.map(lambda pair: scoring.CutupBeaten(by=pair[0], owner=pair[1]))
    if kind == "hand":
        return st.builds(
            scoring.Hand,
            player=player,
            cards=st.integers(0, 13),
            black_twos=st.integers(0, 2),
            red_twos=st.integers(0, 2),
            cutups=st.integers(0, 2),
            bombs=st.integers(0, 3),
        )
    if kind == "guaransheed":
        return st.builds(scoring.Guaransheed, player=player, blind=st.booleans())
    return st.builds(
        scoring.InstantWin, player=player, kind=st.sampled_from(list(scoring.InstantWinKind))
    )


# --- The test -------------------------------------------------------------------------


@settings(
    max_examples=int(os.environ.get("FUZZ_EXAMPLES", "20")),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(table=tables(), data=st.data())
def test_random_play_keeps_ledgers_equal_to_the_facts(db, table, data):
    # One savepoint per example, rolled back, so examples do not see each other's rows.
    with transaction.atomic():
        host, _ = get_user_model().objects.get_or_create(username="host")
        actor = Actor(user=host)
        circle = circle_create(owner=host, name="Fuzz table")
        session = session_create(circle=circle, name="Fuzz", actor=actor, **table)
        note(f"session: {table}")
        check_session(session)
        for _ in range(data.draw(st.integers(1, MAX_STEPS), label="steps")):
            try:
                act(data, session, actor)
            except Refusal as refusal:
                note(f"  refused: {refusal.message}")
            check_session(session)
        transaction.set_rollback(True)


# --- What the search found ------------------------------------------------------------


def test_undo_after_end_match_and_a_correction_is_refused(make_session, actor):
    """End match on an empty deal, then a correction that fills its places, turned it from
    ended into filed; undo then re-opened it in a session that had ended."""
    session, p = make_session(players=("Alice", "Ben"), stake_rule="none")
    deal = session.deals.get()
    deal_end(deal_id=deal.pk, actor=actor)
    deal_correct(deal_id=deal.pk, taps=[p["Alice"].pk, p["Ben"].pk], actor=actor)

    with pytest.raises(Refusal, match="This session has ended"):
        deal_undo(deal_id=deal.pk, actor=actor)

    check_session(session)


def test_an_undo_that_empties_a_deal_gives_it_the_opening_of_the_corrected_deal_before(
    make_session, actor
):
    """The deal before was corrected (a new loser, who deals next) while this deal held a
    tap, so its opening stayed; undoing that tap leaves it empty, and its opening must then
    follow the deal before as it now stands. Found by the search above."""
    session, p = make_session(format="winner_takes_all", stake_rule="loser_pays")
    first = session.deals.get()
    deal_tap(deal_id=first.pk, player_id=p["Alice"].pk, actor=actor)
    deal_tap(deal_id=first.pk, player_id=p["Cara"].pk, loser=True, actor=actor)
    second = session.deals.get(number=2)
    deal_tap(deal_id=second.pk, player_id=p["Alice"].pk, actor=actor)
    deal_correct(deal_id=first.pk, loser=p["Dev"].pk, actor=actor)

    deal_undo(deal_id=second.pk, actor=actor)

    check_session(session)
