"""Invariants of the deal engine over random sessions of records (hypothesis).

A session starts an empty deal under a random valid rule set, then offers it a random
sequence of taps, events and End match; what `add_record`/`end_match` refuses is dropped.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from scoring import (
    Beater,
    CutupBeaten,
    DealFacts,
    DealResult,
    DealStatus,
    Format,
    Guaransheed,
    Hand,
    InstantWin,
    InstantWinKind,
    Options,
    Reason,
    Record,
    Rules,
    ScoringError,
    StakeRule,
    Tap,
    TwoBeaten,
    add_record,
    check_rules,
    end_match,
    max_hand_size,
    play,
)

ALICE, BEN, CARA, DEV, EVE, FAY, GUS, HAL = 1, 2, 3, 4, 5, 6, 7, 8
EVERYONE = (ALICE, BEN, CARA, DEV, EVE, FAY, GUS, HAL)
STRANGER = 99
END_MATCH = "end match"

# Every format and stake rule that check_rules accepts together.
FORMATS = [
    (Format.PODIUM, StakeRule.NONE),
    (Format.PODIUM, StakeRule.LOSER_PAYS),
    (Format.WINNER_TAKES_ALL, StakeRule.NONE),
    (Format.WINNER_TAKES_ALL, StakeRule.LOSER_PAYS),
    (Format.WINNER_TAKES_ALL, StakeRule.PER_CARD),
    (Format.WINNER_TAKES_ALL, StakeRule.PRO_PLAY),
]
PLAY_REASONS = {Reason.TWO_BEATEN, Reason.CUTUP_BEATEN, Reason.GOT_TO_GET_IN}
SESSION_SETTINGS = settings(max_examples=200, deadline=None)

Step = Record | str


@st.composite
def tables(draw: st.DrawFn) -> tuple[tuple[int, ...], Rules]:
    size = draw(st.integers(2, 8))
    format, stake_rule = draw(st.sampled_from(FORMATS))
    money = stake_rule is not StakeRule.NONE
    instant_wins = draw(st.booleans())
    options = Options(
        guaransheed=money and draw(st.booleans()),
        got_to_get_in=money and draw(st.booleans()),
        penalties=money and draw(st.booleans()),
        instant_wins=instant_wins,
        trading=not instant_wins and draw(st.booleans()),
        five_consecutive_pairs=instant_wins and draw(st.booleans()),
    )
    rules = Rules(
        format=format,
        stake_rule=stake_rule,
        stake=draw(
            st.sampled_from([Decimal("0.01"), Decimal("0.50"), Decimal("1"), Decimal("1000000")])
            | st.decimals(min_value=Decimal("0.01"), max_value=Decimal("1000000"), places=2)
        ),
        options=options,
        hand_size=draw(st.integers(13, max_hand_size(size))),
    )
    check_rules(rules, size)
    return EVERYONE[:size], rules


def steps(players: tuple[int, ...]) -> st.SearchStrategy[list[Step]]:
    """Mostly records that can be valid, some that cannot (a stranger, a bad count)."""
    someone = st.sampled_from((*players, *players, STRANGER))
    small = st.sampled_from([0, 0, 0, 1, 2])
    tap = st.builds(
        Tap,
        someone,
        st.one_of(st.just(()), st.just(()), st.lists(someone, max_size=2).map(tuple)),
        st.sampled_from([False, False, False, True]),
    )
    hand = st.builds(
        Hand,
        someone,
        st.integers(0, 13) | st.integers(-1, 18),
        black_twos=small,
        red_twos=small,
        cutups=small,
        bombs=small,
    )
    two_beaten = st.builds(
        TwoBeaten,
        someone,
        someone,
        st.sampled_from(Beater),
        black=st.integers(0, 3),
        red=st.integers(0, 3),
    )
    cutup_beaten = st.builds(CutupBeaten, someone, someone)
    guaransheed = st.builds(Guaransheed, someone, st.booleans())
    instant_win = st.builds(InstantWin, someone, st.sampled_from(InstantWinKind))
    record = st.one_of(
        *[tap] * 8, *[hand] * 4, *[two_beaten] * 2, cutup_beaten, guaransheed, instant_win
    )
    # Sometimes End match, then a few records more (all refused once it has ended).
    ending = st.just([]) | st.tuples(st.lists(record, max_size=3)).map(
        lambda more: [END_MATCH, *more[0]]
    )
    return st.tuples(st.lists(record, min_size=4, max_size=30), ending).map(
        lambda parts: [*parts[0], *parts[1]]
    )


@dataclass(frozen=True)
class Accepted:
    before: DealResult
    step: Step
    facts: DealFacts
    result: DealResult


@dataclass(frozen=True)
class Refused:
    before: DealResult
    step: Step
    error: ScoringError


def run_session(
    players: tuple[int, ...], rules: Rules, offered: list[Step]
) -> tuple[DealFacts, list[Accepted], list[Refused]]:
    facts = DealFacts(players=players, rules=rules)
    result = play(facts)
    accepted: list[Accepted] = []
    refused: list[Refused] = []
    for step in offered:
        try:
            if isinstance(step, str):
                new_facts, new_result = end_match(facts)
            else:
                new_facts, new_result = add_record(facts, step)
        except ScoringError as error:
            refused.append(Refused(result, step, error))
            continue
        accepted.append(Accepted(result, step, new_facts, new_result))
        facts, result = new_facts, new_result
    return facts, accepted, refused


def sessions() -> st.SearchStrategy[tuple[tuple[int, ...], Rules, list[Step]]]:
    """A table, its rules and what the host offers the deal, in order."""
    return tables().flatmap(
        lambda table: st.tuples(st.just(table[0]), st.just(table[1]), steps(table[0]))
    )


def results(accepted: list[Accepted]) -> list[tuple[DealFacts, DealResult]]:
    return [(step.facts, step.result) for step in accepted]


def hand_after_filing_allowed(facts: DealFacts, step: Step, before: DealResult) -> bool:
    """A hand may follow the filing under loser_pays and none (not after an instant win)."""
    instant_win = any(isinstance(record, InstantWin) for record in facts.records)
    return (
        isinstance(step, Hand)
        and before.status is DealStatus.FILED
        and facts.rules.stake_rule in (StakeRule.LOSER_PAYS, StakeRule.NONE)
        and not instant_win
    )


def check_ledgers(accepted: list[Accepted]) -> None:
    """Every ledger sums to zero per player, with positive amounts between two players."""
    for facts, result in results(accepted):
        balances: Counter[int] = Counter()
        for line in result.ledger:
            assert line.amount > 0
            assert line.payer != line.payee
            assert {line.payer, line.payee} <= set(facts.players)
            # A 2-decimal stake times whole or half stakes needs 3 decimals at most.
            assert line.amount == line.amount.quantize(Decimal("0.001"))
            balances[line.payer] -= line.amount
            balances[line.payee] += line.amount
        assert sum(balances.values(), Decimal(0)) == 0
        if not facts.rules.moves_money:
            assert result.ledger == ()
        if result.status is DealStatus.OPEN:
            assert {line.reason for line in result.ledger} <= PLAY_REASONS


def check_points(accepted: list[Accepted]) -> None:
    """Points go only to tapped players (or the instant winner); places are distinct."""
    for facts, result in results(accepted):
        tapped = {record.player for record in facts.records if isinstance(record, Tap)}
        claimants = {record.player for record in facts.records if isinstance(record, InstantWin)}
        scorers = {player for player, points in result.points.items() if points > 0}
        assert scorers <= tapped | claimants
        assert set(result.points) == set(facts.players)
        places = list(result.places.values())
        assert len(places) == len(set(places))
        assert all(1 <= place <= len(facts.players) for place in places)
        if result.status is DealStatus.FILED and not claimants:
            podium_points = {2: 5}.get(len(facts.players), 6)
            expected = 1 if facts.rules.format is Format.WINNER_TAKES_ALL else podium_points
            assert sum(result.points.values()) == expected
            if facts.rules.stake_rule is StakeRule.LOSER_PAYS:
                assert result.loser is not None


def check_closed(final: DealFacts, accepted: list[Accepted], refused: list[Refused]) -> None:
    """A filed deal stays filed and refuses records as conflicts (but a hand under
    loser_pays or none); an ended deal refuses everything; an open deal never conflicts."""
    for step in accepted:
        if step.before.status is DealStatus.FILED:
            assert hand_after_filing_allowed(step.facts, step.step, step.before)
            assert step.result.status is DealStatus.FILED
        assert step.before.status is not DealStatus.ENDED
    for refusal in refused:
        if not refusal.before.closed:
            assert refusal.error.conflict is False
        elif not hand_after_filing_allowed(final, refusal.step, refusal.before):
            assert refusal.error.conflict is True


def check_replay(final: DealFacts, accepted: list[Accepted]) -> None:
    """play() is deterministic, and adding the records one at a time gives its result."""
    assert play(final) == play(final)
    replayed = DealFacts(players=final.players, rules=final.rules)
    for record in final.records:
        replayed, result = add_record(replayed, record)
    if final.ended:
        replayed, result = end_match(replayed)
    else:
        result = play(replayed)
    assert replayed == final
    assert result == play(final)
    for facts, step_result in results(accepted):
        assert play(facts) == step_result


@SESSION_SETTINGS
@given(sessions())
def test_sessions_keep_ledgers_balanced_and_points_with_tapped_players(session):
    _, accepted, _ = run_session(*session)
    check_ledgers(accepted)
    check_points(accepted)


@SESSION_SETTINGS
@given(sessions())
def test_sessions_stay_closed_once_closed_and_replay_the_same(session):
    final, accepted, refused = run_session(*session)
    check_closed(final, accepted, refused)
    check_replay(final, accepted)
