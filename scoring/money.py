"""What money a deal moves (SPEC 4): the rates in stakes, and the lines decided at the end
of the deal. Lines paid during play (2s, cutups, Got to Get In) are charged by the replay
as each record comes in; they use the same `line`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from decimal import Decimal

from scoring.facts import (
    Beater,
    Guaransheed,
    Hand,
    LedgerLine,
    PlayerId,
    Reason,
    Rules,
    StakeRule,
)

# What a 2 beaten during play earns the player who beat it, in stakes (SPEC 4.1).
TWO_BEATEN_RATE: dict[Beater, tuple[Decimal, Decimal]] = {
    #            black           red
    Beater.CUTUP: (Decimal("1"), Decimal("1.5")),
    Beater.BOMB: (Decimal("2"), Decimal("3")),
}
UNUSED_RATE: dict[Reason, Decimal] = {
    Reason.UNUSED_BLACK_TWO: Decimal("1"),
    Reason.UNUSED_RED_TWO: Decimal("2"),
    Reason.UNUSED_CUTUP: Decimal("1.5"),
    Reason.UNUSED_BOMB: Decimal("3"),
}
GOT_TO_GET_IN_RATE = Decimal("2")
GUARANSHEED_LOST_RATE = Decimal("2")
PRO_PLAY_BIG_HAND = 10  # more than this many cards left pays double


def stakes(rules: Rules, rate: Decimal) -> Decimal:
    """`rate` stakes in money."""
    return rules.stake * rate


def line(
    rules: Rules,
    payer: PlayerId,
    payee: PlayerId,
    amount: Decimal,
    reason: Reason,
    *,
    penalty: bool = False,
) -> LedgerLine | None:
    """A ledger line, or None when the rules move no such money or it comes to nothing."""
    if not rules.moves_money or (penalty and not rules.penalties_on):
        return None
    if amount <= 0:
        return None
    return LedgerLine(payer=payer, payee=payee, amount=amount, reason=reason)


def settled_lines(
    rules: Rules,
    players: Sequence[PlayerId],
    *,
    winner: PlayerId | None,
    loser: PlayerId | None,
    instant_win: bool,
    hands: Mapping[PlayerId, Hand],
    guaransheed: Guaransheed | None,
) -> list[LedgerLine | None]:
    """Lines decided at the end of the deal, for what is known by then."""
    others = [player for player in players if player != winner]
    if instant_win:
        assert winner is not None
        return [line(rules, player, winner, rules.stake, Reason.INSTANT_WIN) for player in others]
    lines: list[LedgerLine | None] = []
    if rules.stake_rule is StakeRule.LOSER_PAYS and loser is not None:
        lines += [
            line(rules, loser, player, rules.stake, Reason.LOSER_PAYS)
            for player in players
            if player != loser
        ]
    if winner is not None:
        for player in others:
            hand = hands.get(player)
            if hand is not None:
                lines += hand_lines(rules, hand, winner)
        lines += guaransheed_lines(rules, players, guaransheed, winner)
    return lines


def hand_lines(rules: Rules, hand: Hand, winner: PlayerId) -> list[LedgerLine | None]:
    payer = hand.player
    lines: list[LedgerLine | None] = []
    if rules.stake_rule is StakeRule.PER_CARD:
        lines.append(
            line(rules, payer, winner, stakes(rules, Decimal(hand.cards)), Reason.CARDS_LEFT)
        )
    elif rules.stake_rule is StakeRule.PRO_PLAY:
        rate = Decimal(2) if hand.cards > PRO_PLAY_BIG_HAND else Decimal(1)
        lines.append(line(rules, payer, winner, stakes(rules, rate), Reason.PRO_PLAY_WIN))
    counts = {
        Reason.UNUSED_BLACK_TWO: hand.black_twos,
        Reason.UNUSED_RED_TWO: hand.red_twos,
        Reason.UNUSED_CUTUP: hand.cutups,
        Reason.UNUSED_BOMB: hand.bombs,
    }
    for reason, count in counts.items():
        amount = stakes(rules, UNUSED_RATE[reason] * count)
        lines.append(line(rules, payer, winner, amount, reason, penalty=True))
    return lines


def guaransheed_lines(
    rules: Rules,
    players: Sequence[PlayerId],
    declaration: Guaransheed | None,
    winner: PlayerId,
) -> list[LedgerLine | None]:
    if declaration is None:
        return []
    declarer = declaration.player
    others = [player for player in players if player != declarer]
    if declarer == winner:
        rate = Decimal(2) if declaration.blind else Decimal(1)
        return [
            line(rules, player, declarer, stakes(rules, rate), Reason.GUARANSHEED_WON)
            for player in others
        ]
    return [
        line(
            rules,
            declarer,
            player,
            stakes(rules, GUARANSHEED_LOST_RATE),
            Reason.GUARANSHEED_LOST,
        )
        for player in others
    ]
