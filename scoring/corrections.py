"""Correcting a closed deal (SPEC 3.4): a new tap order, a loser, events added or taken
out; the records are rebuilt and replayed, so points and the ledger are recomputed by the
same rules that scored the deal.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import replace

from scoring.deal import play
from scoring.errors import ScoringError
from scoring.facts import (
    CutupBeaten,
    DealFacts,
    DealResult,
    DealStatus,
    Guaransheed,
    Hand,
    InstantWin,
    PlayerId,
    Record,
    Tap,
    TwoBeaten,
)
from scoring.text import gettext_noop


def correct(
    facts: DealFacts,
    *,
    order: Sequence[PlayerId] | None = None,
    loser: PlayerId | None = None,
    add: Sequence[Record] = (),
    remove: Collection[int] = (),
) -> tuple[DealFacts, DealResult]:
    """The deal as corrected, and what it comes to; raises ScoringError if refused.

    `facts` is the deal as stored, filed or ended. `order` is the right tap order (None
    keeps the taps as they are), `loser` the loser tapped directly when they are not in
    `order` (without `order`: the places stay as tapped and this player is the loser
    instead), `add` the events to add and `remove` the indexes in `facts.records` of the
    events to take out.
    """
    before = play(facts)
    if not before.closed:
        raise ScoringError(
            gettext_noop("This deal is still open: use undo, or record what is missing."),
            conflict=True,
        )
    events = {
        index: record for index, record in enumerate(facts.records) if not isinstance(record, Tap)
    }
    if any(index not in events for index in remove):
        raise ScoringError(gettext_noop("There is no such event on this deal."))
    kept = [record for index, record in events.items() if index not in remove]
    old_taps = [record for record in facts.records if isinstance(record, Tap)]
    if order is None and loser is not None:
        # Only the loser named: the others keep their places, and the replay says whether
        # this loser can be (a 4-player deal's loser is whoever was not tapped).
        order = [tap.player for tap in old_taps if not tap.loser and tap.player != loser]

    taps = old_taps if order is None else _reordered(old_taps, order, loser)

    events_after = [*kept, *add]
    if any(isinstance(record, InstantWin) for record in events_after):
        taps = []  # an instant win places nobody else
    # A stable sort by phase keeps the recorded order within each phase.
    records = _hands_before_their_taps(
        sorted([*events_after, *taps], key=_phase), _early_hands(facts.records)
    )
    corrected = replace(facts, records=tuple(records))
    try:
        after = play(corrected)
    except ScoringError as error:
        raise ScoringError(
            gettext_noop("That correction does not add up: %(reason)s"), reason=error.text
        ) from None
    if before.status is DealStatus.FILED and not after.closed:
        raise ScoringError(
            gettext_noop("That correction leaves the deal unfinished: %(reason)s"),
            reason=after.why,
        )
    return corrected, after


def _reordered(
    old_taps: Sequence[Tap], order: Sequence[PlayerId], loser: PlayerId | None
) -> list[Tap]:
    """Taps in the new order. Each keeps the Got to Get In marks of that player's old tap:
    who had not yet played when they went out is a fact about them, not about the order."""
    if len(set(order)) != len(order):
        raise ScoringError(gettext_noop("A player appears twice in the tap order."))
    if loser is not None and loser in order and order[-1] != loser:
        raise ScoringError(gettext_noop("The loser is the last player in the tap order."))
    not_played = {tap.player: tap.not_played for tap in old_taps}
    taps = [Tap(player=player, not_played=not_played.get(player, ())) for player in order]
    if loser is not None and loser not in order:
        taps.append(Tap(player=loser, loser=True))
    return taps


def _early_hands(records: Sequence[Record]) -> set[int]:
    """The hands (by identity) recorded before their player went out: a player who plays
    their last cards may have their hand noted first, with no cards left."""
    tapped_at = {
        record.player: index
        for index, record in enumerate(records)
        if isinstance(record, Tap) and not record.loser
    }
    return {
        id(record)
        for index, record in enumerate(records)
        if isinstance(record, Hand) and index < tapped_at.get(record.player, -1)
    }


def _hands_before_their_taps(records: list[Record], early: set[int]) -> list[Record]:
    """`records` with each early hand just before its player's tap again, wherever the
    correction put that tap: replayed after it, the player would hold no cards. A hand
    whose player is no longer tapped stays with the hands, at the end."""
    moved = {
        record.player: record
        for record in records
        if isinstance(record, Hand) and id(record) in early
    }
    ordered: list[Record] = []
    for record in records:
        if id(record) in early:
            continue
        if isinstance(record, Tap) and not record.loser and record.player in moved:
            ordered.append(moved.pop(record.player))
        ordered.append(record)
    return [*ordered, *moved.values()]


def _phase(record: Record) -> int:
    """Where a record goes when a deal is replayed for a correction: declarations and
    claims first, then what happened in play (2s and cutups beaten are only recorded while
    the deal is open, so before the tap that filed it), then taps, then hands (which may
    follow the filing)."""
    if isinstance(record, Guaransheed | InstantWin):
        return 0
    if isinstance(record, TwoBeaten | CutupBeaten):
        return 1
    if isinstance(record, Tap):
        return 2
    return 3
