"""Skill ratings from finishing orders, with OpenSkill's Plackett–Luce model (SPEC 6).

Each deal is a free-for-all: the podium's places rank the players, and every place beyond
the podium ties (SPEC 6), the loser's and those of players never tapped included.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce, PlackettLuceRating

from scoring.facts import PlayerId
from scoring.table import PODIUM_POINTS

BEYOND_THE_PODIUM = len(PODIUM_POINTS) + 1  # the rank every place past 3rd shares


@dataclass(frozen=True)
class Skill:
    mu: float
    sigma: float

    @property
    def ordinal(self) -> float:
        """A conservative single number to rank by: mu − 3·sigma."""
        return self.mu - 3 * self.sigma


def finishing_ranks(players: Sequence[PlayerId], places: Mapping[PlayerId, int]) -> list[int]:
    """Ranks for the model, 1 best: a podium place as it is, and every place beyond the
    podium one shared rank (SPEC 6: 4th, 5th and the loser of six tie; they were ranked
    apart, and the head-to-head counted 4th ahead of 5th). Players never tapped (a deal
    ended early) tie just below the tapped ones, and never above the shared rank."""
    tapped = [place for place in places.values() if place < len(players)] or [0]
    untapped = min(max(tapped) + 1, BEYOND_THE_PODIUM)
    return [min(places.get(player, untapped), BEYOND_THE_PODIUM) for player in players]


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
