"""What one deal adds to each player's session totals (SPEC 6), so standings can be kept
as running totals instead of being summed over every deal on each read."""

from __future__ import annotations

from dataclasses import dataclass, fields
from decimal import Decimal

from scoring.facts import DealFacts, DealResult, DealStatus, Guaransheed, PlayerId, TwoBeaten


@dataclass(frozen=True)
class Tally:
    points: int = 0
    deals: int = 0
    wins: int = 0
    podiums: int = 0
    losses: int = 0
    place_total: int = 0
    placed: int = 0
    net: Decimal = Decimal(0)
    twos_beaten_made: int = 0
    twos_beaten_suffered: int = 0
    guaransheeds_won: int = 0
    guaransheeds_lost: int = 0

    def __add__(self, other: Tally) -> Tally:
        return Tally(*(getattr(self, f.name) + getattr(other, f.name) for f in fields(self)))

    def __neg__(self) -> Tally:
        return Tally(*(-getattr(self, f.name) for f in fields(self)))

    def __sub__(self, other: Tally) -> Tally:
        return self + -other

    def __bool__(self) -> bool:
        return any(getattr(self, f.name) for f in fields(self))


COUNTED_STATUSES: frozenset[DealStatus] = frozenset({DealStatus.FILED, DealStatus.ENDED})
"""The statuses a deal can count in the standings with; an open deal never does."""


def counts(status: DealStatus, winner: PlayerId | None) -> bool:
    """A deal counts once it is filed, or ended after someone went out (SPEC 3.3).

    Status and winner, not a whole result, so a stored deal's columns can be asked too.
    """
    return status in COUNTED_STATUSES and winner is not None


def contribution(facts: DealFacts, result: DealResult) -> dict[PlayerId, Tally]:
    """Each player's share of the deal in the standings; empty while it does not count."""
    if not counts(result.status, result.winner):
        return {}
    net = {player: Decimal(0) for player in facts.players}
    for line in result.ledger:
        net[line.payer] -= line.amount
        net[line.payee] += line.amount
    made = dict.fromkeys(facts.players, 0)
    suffered = dict.fromkeys(facts.players, 0)
    declared: PlayerId | None = None
    for record in facts.records:
        if isinstance(record, TwoBeaten):
            made[record.by] += record.black + record.red
            suffered[record.owner] += record.black + record.red
        elif isinstance(record, Guaransheed):
            declared = record.player
    tallies = {}
    for player in facts.players:
        place = result.places.get(player)
        points = result.points.get(player, 0)
        tallies[player] = Tally(
            points=points,
            deals=1,
            wins=int(place == 1),
            podiums=int(points > 0),
            losses=int(result.loser == player),
            place_total=place or 0,
            placed=int(place is not None),
            net=net[player],
            twos_beaten_made=made[player],
            twos_beaten_suffered=suffered[player],
            guaransheeds_won=int(declared == player and result.winner == player),
            guaransheeds_lost=int(declared == player and result.winner != player),
        )
    return tallies


def change(
    before: tuple[DealFacts, DealResult] | None, after: tuple[DealFacts, DealResult]
) -> dict[PlayerId, Tally]:
    """What to add to the running totals when a deal goes from `before` to `after`."""
    old = contribution(*before) if before is not None else {}
    new = contribution(*after)
    delta = {player: new.get(player, Tally()) - old.get(player, Tally()) for player in {*old, *new}}
    return {player: tally for player, tally in delta.items() if tally}
