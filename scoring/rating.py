"""Skill ratings from finishing orders, with OpenSkill's Plackett–Luce model (SPEC 6).

Each deal is a free-for-all: places rank the players, and everyone below the podium who
was never tapped ties (the loser, when known, is last).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce, PlackettLuceRating

from scoring.facts import PlayerId


@dataclass(frozen=True)
class Skill:
    mu: float
    sigma: float

    @property
    def ordinal(self) -> float:
        """A conservative single number to rank by: mu − 3·sigma."""
        return self.mu - 3 * self.sigma


def finishing_ranks(players: Sequence[PlayerId], places: Mapping[PlayerId, int]) -> list[int]:
    """Ranks for the model, 1 best; unplaced players tie just below the tapped ones."""
    tapped = [place for place in places.values() if place < len(players)] or [0]
    untied = max(tapped) + 1
    return [places.get(player, untied) for player in players]


def rate(
    deals: Iterable[tuple[Sequence[PlayerId], Mapping[PlayerId, int]]],
) -> dict[PlayerId, Skill]:
    """Ratings after the deals, in order: each is (players of the deal, their places)."""
    model = PlackettLuce()
    ratings: dict[PlayerId, PlackettLuceRating] = {}
    for players, places in deals:
        if len(players) < 2 or not places:
            continue
        teams = [[ratings.get(player) or model.rating()] for player in players]
        rated = model.rate(teams, ranks=[float(rank) for rank in finishing_ranks(players, places)])
        for player, (rating,) in zip(players, rated, strict=True):
            ratings[player] = rating
    return {player: Skill(mu=r.mu, sigma=r.sigma) for player, r in ratings.items()}
