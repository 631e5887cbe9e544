"""The cutup chain (SPEC 4.1; seed 000's Pro-Play point system): "Cutting or bombing
another cutup results in double the points the other player received for his/her cutup".

A cutup that beats 2s earns what they paid. Beating that cutup, with a higher cutup or a
bomb, earns double what it earned, paid by its owner (whose own earning stands). A cutup
that earned by beating a cutup stands to be beaten in turn, so a chain of cutups doubles
each time; a bomb's earning never does, because a bomb beating a bomb earns nothing more.
The app never sees ordinary plays: a player's earning play stands until it is beaten or
they make another earning play.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

from scoring.errors import ScoringError
from scoring.facts import Beater, PlayerId
from scoring.text import Text, gettext_noop


@dataclass
class CutupChain:
    """Each player's last earning play, while it stands: a cutup (with what it earned) or
    a bomb."""

    cutups: dict[PlayerId, Decimal] = field(default_factory=dict)
    bombs: set[PlayerId] = field(default_factory=set)

    def earned(self, player: PlayerId, beaten_with: Beater, earning: Decimal) -> None:
        """`player` just earned `earning` by beating 2s or a cutup with `beaten_with`: it
        is their last play now, and only a cutup stands to be beaten for double."""
        if beaten_with is Beater.CUTUP:
            self.cutups[player] = earning
            self.bombs.discard(player)
        else:
            self.cutups.pop(player, None)
            self.bombs.add(player)

    def beat(self, owner: PlayerId, *, name: str | Text) -> Decimal:
        """`owner`'s standing cutup is beaten: what its beater earns, double what it
        earned. Refused when `owner` has no cutup standing that earned."""
        beaten = self.cutups.pop(owner, None)
        if beaten is not None:
            return beaten * 2
        if owner in self.bombs:
            raise ScoringError(
                gettext_noop(
                    "%(player)s's last play that earned was a bomb, and beating a bomb "
                    "earns nothing more."
                ),
                player=name,
            )
        raise ScoringError(
            gettext_noop(
                "%(player)s has no cutup that beat a 2 in this deal: there is nothing to double."
            ),
            player=name,
        )
