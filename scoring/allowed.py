"""What may be recorded next on a deal: the one place the tap screen and the deal page read
which sheets and which players to offer (SPEC 3.4, 4).

On an open deal it is what the table may record now; on a closed (filed or ended) deal it
is what a correction may add (`scoring.correct`). Everything here is read from the same
replay state that refuses a record, so what is offered on an open deal is accepted.
Players are listed in the deal's seat order (the order of `facts.players`).
"""

from __future__ import annotations

from dataclasses import dataclass

from scoring.facts import DealFacts, DealStatus, InstantWinKind, PlayerId, Tap
from scoring.replay import DealState, replay
from scoring.table import MAX_TWOS_BEATEN, TWOS_PER_COLOUR_PER_DECK, most_cards, one_pack

Players = tuple[PlayerId, ...]


@dataclass(frozen=True)
class Allowed:
    """What a deal may record next; an empty tuple or False means "not offered".

    - `tap`: who may be tapped out now (open deal, play not over); a player whose hand is
      recorded with cards left only once they are the last one holding cards.
    - `loser`: who may be tapped directly as the loser (scoring places filled, loser
      unknown, rules that do not need hands).
    - `not_played`: who may be marked "not yet played" on a tap (Got to Get In, before the
      scoring places are filled).
    - `two_beaten`, `cutup_beaten`: whether those sheets are offered; `twos`: the 2s one
      play may beat, as (black, red) counts within what the packs still hold;
      `cutup_owners`: whose cutup may be recorded as beaten (an earning cutup of theirs
      stands), with a cutup or a bomb.
    - `guaransheed`, `instant_win`: who may declare one, who may claim one.
    - `instant_win_kinds`: the kinds a claim may name, lowest to highest.
    - `hands`: whose hand the hand sheet may record. On a closed deal a recorded hand is
      listed too: a new one replaces it (the same correction removes the old one).
    - `hands_due`: whose hand the deal waits for (rules that need hands, winner out).
    - `most_cards`: the most cards a hand can hold; `unused_cards`: whether a hand also
      asks unused 2s, cutups and bombs; `cards_pay`: whether the number of cards left pays
      (pay by the card, Pro-Play) and so is asked at all.
    - `whole_hands`: whose hand must hold every card dealt (`most_cards`): those marked
      "not yet played" on the tap that ended play.
    - `end`: whether End match is possible.
    """

    status: DealStatus
    tap: Players
    loser: Players
    not_played: Players
    two_beaten: bool
    cutup_beaten: bool
    cutup_owners: Players
    guaransheed: Players
    instant_win: Players
    instant_win_kinds: tuple[InstantWinKind, ...]
    hands: Players
    hands_due: Players
    most_cards: int
    unused_cards: bool
    whole_hands: Players
    end: bool
    cards_pay: bool
    twos: tuple[tuple[int, int], ...]


def allowed(facts: DealFacts) -> Allowed:
    """What may be recorded next on the deal, or added by a correction once it is closed.

    Raises ScoringError when the deal's own records do not replay (as `play` does).
    """
    deal = replay(facts)
    status = deal.status()
    if status is DealStatus.OPEN:
        return _open(deal)
    return _closed(deal, status)


def _open(deal: DealState) -> Allowed:
    rules, options = deal.rules, deal.rules.options
    untapped = tuple(deal.untapped())
    filled = deal.places_filled()
    # Pay by the card and Pro-Play end play at the first player out: what is left is
    # recording the other hands.
    play_over = filled and rules.needs_hands
    tap: Players = ()
    if not play_over:
        tap = tuple(p for p in untapped if not deal.hand_blocks_tap(p, loser=False))
    loser = untapped if filled and deal.loser() is None and not rules.needs_hands else ()
    declare = options.guaransheed and deal.guaransheed is None and not deal.order
    claim = _instant_wins_offered(deal) and deal.record_count == 0
    # Under loser pays with penalties the hand sheet records the unused 2s, cutups and
    # bombs of those still holding cards; rules that need hands ask through hands_due.
    hands: Players = ()
    if rules.penalties_on and not rules.needs_hands:
        hands = tuple(p for p in deal.players if deal.holds_cards(p) and p not in deal.hands)
    return Allowed(
        status=DealStatus.OPEN,
        tap=tap,
        loser=loser,
        not_played=_not_played(deal, untapped) if options.got_to_get_in and not filled else (),
        two_beaten=_twos_left(deal),
        cutup_beaten=bool(_cutup_owners(deal)),
        cutup_owners=_cutup_owners(deal),
        guaransheed=deal.players if declare else (),
        instant_win=deal.players if claim else (),
        instant_win_kinds=options.instant_win_kinds() if claim else (),
        hands=hands,
        hands_due=tuple(deal.hands_missing()) if play_over else (),
        most_cards=most_cards(rules, deal.size),
        unused_cards=rules.penalties_on,
        whole_hands=_whole_hands(deal),
        end=True,
        cards_pay=rules.needs_hands,
        twos=_twos(deal),
    )


def _not_played(deal: DealState, untapped: Players) -> Players:
    """Who may be marked "not yet played": those still holding cards, but not a player
    whose hand is recorded with fewer cards than were dealt (they have played one)."""
    most = most_cards(deal.rules, deal.size)
    return tuple(p for p in untapped if p not in deal.hands or deal.hands[p].cards >= most)


def _closed(deal: DealState, status: DealStatus) -> Allowed:
    """What a correction may add. It replays the records by phase (declarations and claims,
    then play, then taps, then hands), so a Guaransheed may be added after the taps; an
    instant win files the deal before anything else and places nobody else, so nothing
    may be added beside it."""
    rules, options = deal.rules, deal.rules.options
    instant = deal.instant_win is not None
    declare = options.guaransheed and deal.guaransheed is None and not instant
    # A claim added by a correction replaces the finishing order, not other events.
    only_taps = all(isinstance(record, Tap) for record in deal.facts.records)
    claim = _instant_wins_offered(deal) and only_taps
    hands: Players = ()
    if (rules.needs_hands or rules.penalties_on) and not instant:
        hands = tuple(p for p in deal.players if deal.holds_cards(p))
    return Allowed(
        status=status,
        tap=(),
        loser=(),
        not_played=(),
        two_beaten=not instant and _twos_left(deal),
        cutup_beaten=not instant and bool(_cutup_owners(deal)),
        cutup_owners=() if instant else _cutup_owners(deal),
        guaransheed=deal.players if declare else (),
        instant_win=deal.players if claim else (),
        instant_win_kinds=options.instant_win_kinds() if claim else (),
        hands=hands,
        hands_due=(),
        most_cards=most_cards(rules, deal.size),
        unused_cards=rules.penalties_on,
        whole_hands=_whole_hands(deal),
        end=False,
        cards_pay=rules.needs_hands,
        twos=_twos(deal) if not instant else (),
    )


def _cutup_owners(deal: DealState) -> Players:
    """Only a cutup that earned can be beaten for more, and it pays only with penalties."""
    if not deal.rules.penalties_on:
        return ()
    return tuple(player for player in deal.players if player in deal.chain.cutups)


def _whole_hands(deal: DealState) -> Players:
    return tuple(player for player in deal.players if player in deal.whole_hands)


def _twos_left(deal: DealState) -> bool:
    """Whether a 2 of either colour is still unaccounted for (not yet beaten or left in a
    hand): each is beaten at most once."""
    return bool(_twos(deal))


def _twos(deal: DealState) -> tuple[tuple[int, int], ...]:
    """(black, red) 2s one play may beat: 1 to 3 of them (four cannot be beaten), no more
    of a colour than the packs still hold."""
    most = TWOS_PER_COLOUR_PER_DECK * deal.decks
    black_left, red_left = (most - seen for seen in deal.twos_seen)
    return tuple(
        (black, red)
        for count in range(1, MAX_TWOS_BEATEN + 1)
        for black in range(count, -1, -1)
        for red in [count - black]
        if black <= black_left and red <= red_left
    )


def _instant_wins_offered(deal: DealState) -> bool:
    """Whether this deal's table plays instant wins at all (SPEC 4.4): the session's
    option, and one pack: with five to eight players two packs are dealt, and two packs
    have no instant wins (seed 000, Double Deck 13), whatever the option says."""
    return deal.rules.options.instant_wins and one_pack(deal.size)
