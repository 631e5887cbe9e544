"""Scoring one deal: replay what the table recorded, refuse what the rules forbid, and
derive places, points, the loser and the ledger (SPEC 3 and 4).

`play(facts)` is the whole story: every record is checked against the state the records
before it left, in order, so a stored deal and a fresh recomputation always agree.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from decimal import Decimal

from scoring.facts import (
    Beater,
    CutupBeaten,
    DealFacts,
    DealResult,
    DealStatus,
    Format,
    Guaransheed,
    Hand,
    InstantWin,
    LedgerLine,
    PlayerId,
    Reason,
    Record,
    Rules,
    StakeRule,
    Tap,
    TwoBeaten,
)
from scoring.text import Text, gettext_noop, ordinal

PODIUM_POINTS = {1: 3, 2: 2, 3: 1}
MAX_STAKE = Decimal("1000000")
MIN_PLAYERS, MAX_PLAYERS = 2, 8
TWOS_PER_COLOUR_PER_DECK = 2
MAX_TWOS_BEATEN = 3  # four 2s cannot be beaten

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


class ScoringError(ValueError):
    """A record the rules refuse, with a sentence for the person who sent it.

    `text` is the sentence as a template and values (see `scoring.text`), `message` the
    same in English. `conflict` is True when the refusal is about the deal's state (it is
    already filed or ended) rather than about the record itself.
    """

    def __init__(self, template: str, *, conflict: bool = False, **values: object) -> None:
        self.text = Text(template, values)
        super().__init__(self.text.render())
        self.conflict = conflict

    @property
    def message(self) -> str:
        return self.text.render()


# --- Table rules ----------------------------------------------------------------------


def decks_for(players: int) -> int:
    """Five to eight players shuffle two packs together."""
    return 2 if players >= 5 else 1


def max_hand_size(players: int) -> int:
    """The most cards each player can be dealt: 13, 17 for three, or what goes round
    equally from two packs with five to eight."""
    if players == 3:
        return 17
    if players >= 5:
        return 52 * 2 // players
    return 13


def podium_size(rules: Rules, players: int) -> int:
    if rules.format is Format.WINNER_TAKES_ALL:
        return 1
    return min(3, players)


def points_for(rules: Rules, place: int) -> int:
    if rules.format is Format.WINNER_TAKES_ALL:
        return 1 if place == 1 else 0
    return PODIUM_POINTS.get(place, 0)


def check_stake(stake: Decimal) -> None:
    if not stake.is_finite() or stake <= 0:
        raise ScoringError(gettext_noop("The stake must be more than 0."))
    if stake > MAX_STAKE:
        raise ScoringError(gettext_noop("The stake can be at most 1,000,000."))
    if stake != stake.quantize(Decimal("0.01")):
        raise ScoringError(gettext_noop("The stake can have at most 2 decimal places."))


def check_rules(rules: Rules, players: int) -> None:
    """Refuse a rule set that cannot work at a table of this size (SPEC 4, 8)."""
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise ScoringError(gettext_noop("A table has 2 to 8 players."))
    check_stake(rules.stake)
    if rules.needs_hands and rules.format is Format.PODIUM:
        raise ScoringError(
            gettext_noop(
                "Pay by the card and Pro-Play end the deal at the first player out, "
                "so they go with winner takes all, not a podium."
            )
        )
    options = rules.options
    if rules.stake_rule is StakeRule.NONE and (
        options.penalties or options.guaransheed or options.got_to_get_in
    ):
        raise ScoringError(
            gettext_noop(
                "With no stakes no money moves: switch off penalties, Guaransheed and "
                "Got to Get In, or pick a stake rule."
            )
        )
    if options.instant_wins and options.trading:
        raise ScoringError(
            gettext_noop(
                "Instant wins and trading cannot be on together: traded cards would make "
                "an instant-win hand."
            )
        )
    largest = max_hand_size(players)
    if not 13 <= rules.hand_size <= largest:
        if largest == 13:
            raise ScoringError(
                gettext_noop("With %(players)s players each is dealt 13 cards."), players=players
            )
        raise ScoringError(
            gettext_noop("With %(players)s players the hand size is 13 to %(largest)s cards."),
            players=players,
            largest=largest,
        )


# --- Replaying a deal ------------------------------------------------------------------


@dataclass
class _Deal:
    """The state of a deal after some of its records, built one record at a time."""

    facts: DealFacts
    order: list[PlayerId] = field(default_factory=list)  # tapped players, in tap order
    loser_tapped: PlayerId | None = None
    hands: dict[PlayerId, Hand] = field(default_factory=dict)
    guaransheed: Guaransheed | None = None
    instant_win: InstantWin | None = None
    # What each player's last cutup earned, while it stands to be beaten (SPEC 4.1).
    cutup_earning: dict[PlayerId, Decimal] = field(default_factory=dict)
    # 2s accounted for so far, beaten in play or left unused in a hand: black, red.
    twos_seen: tuple[int, int] = (0, 0)
    play_ledger: list[LedgerLine] = field(default_factory=list)
    record_count: int = 0

    # -- derived facts --

    @property
    def rules(self) -> Rules:
        return self.facts.rules

    @property
    def players(self) -> tuple[PlayerId, ...]:
        return self.facts.players

    @property
    def size(self) -> int:
        return len(self.players)

    @property
    def decks(self) -> int:
        return decks_for(self.size)

    @property
    def podium(self) -> int:
        return podium_size(self.rules, self.size)

    def untapped(self) -> list[PlayerId]:
        return [player for player in self.players if player not in self.order]

    def places(self) -> dict[PlayerId, int]:
        if self.instant_win is not None:
            return {self.instant_win.player: 1}
        places = {player: index + 1 for index, player in enumerate(self.order)}
        loser = self.loser()
        # Podium places are filled by taps only: an untapped loser reads out in last
        # place only when that place is off the podium (it scores nothing).
        if loser is not None and (loser in self.order or self.size > self.podium):
            places[loser] = self.size
        return places

    def winner(self) -> PlayerId | None:
        if self.instant_win is not None:
            return self.instant_win.player
        return self.order[0] if self.order else None

    def loser(self) -> PlayerId | None:
        """The last player still holding cards, once it is known (SPEC 3.1)."""
        if self.instant_win is not None or self.rules.needs_hands:
            return None
        if self.loser_tapped is not None:
            return self.loser_tapped
        untapped = self.untapped()
        if len(untapped) == 1 and self.order:
            return untapped[0]
        if not untapped:
            return self.order[-1]
        return None

    def places_filled(self) -> bool:
        return len(self.order) >= self.podium

    def hands_missing(self) -> list[PlayerId]:
        winner = self.winner()
        return [p for p in self.players if p != winner and p not in self.hands]

    def filed(self) -> bool:
        """The one filing rule (SPEC 3.2a): scored places filled, stake facts known."""
        if self.instant_win is not None:
            return True
        if not self.places_filled():
            return False
        if self.rules.stake_rule is StakeRule.LOSER_PAYS:
            return self.loser() is not None
        if self.rules.needs_hands:
            return not self.hands_missing()
        return True

    def name(self, player: PlayerId) -> str | Text:
        return self.facts.name(player)

    def stake(self, rate: Decimal) -> Decimal:
        return self.rules.stake * rate

    # -- checks shared by records --

    def require_open(self) -> None:
        if self.filed():
            raise ScoringError(gettext_noop("This deal is already filed."), conflict=True)

    def require_player(self, player: PlayerId) -> None:
        if player not in self.players:
            raise ScoringError(
                gettext_noop("%(player)s is not playing this deal."), player=self.name(player)
            )

    def require_two_players(self, by: PlayerId, owner: PlayerId) -> None:
        self.require_player(by)
        self.require_player(owner)
        if by == owner:
            raise ScoringError(gettext_noop("A player cannot beat their own cards."))

    def count_twos(self, black: int, red: int) -> None:
        """Each 2 is beaten or left in a hand at most once: no more of a colour in the
        whole deal than its decks hold."""
        most = TWOS_PER_COLOUR_PER_DECK * self.decks
        if black > most or red > most:
            raise ScoringError(
                gettext_noop("The deck holds only %(most)s twos of each colour."), most=most
            )
        seen_black, seen_red = self.twos_seen
        if seen_black + black > most or seen_red + red > most:
            raise ScoringError(
                gettext_noop(
                    "The deck holds only %(most)s twos of each colour, and this deal already "
                    "has %(black)s black and %(red)s red beaten or left in a hand."
                ),
                most=most,
                black=seen_black,
                red=seen_red,
            )
        self.twos_seen = (seen_black + black, seen_red + red)

    def holds_cards(self, player: PlayerId) -> bool:
        """A tapped player went out with no cards, unless their tap was the loser's."""
        return player not in self.order or player == self.loser()

    # -- applying one record --

    def apply(self, record: Record) -> None:
        if isinstance(record, Tap):
            self.apply_tap(record)
        elif isinstance(record, TwoBeaten):
            self.apply_two_beaten(record)
        elif isinstance(record, CutupBeaten):
            self.apply_cutup_beaten(record)
        elif isinstance(record, Hand):
            self.apply_hand(record)
        elif isinstance(record, Guaransheed):
            self.apply_guaransheed(record)
        else:
            self.apply_instant_win(record)
        self.record_count += 1

    def apply_tap(self, tap: Tap) -> None:
        self.require_open()
        player = tap.player
        self.require_player(player)
        if player in self.order:
            place = self.order.index(player) + 1
            raise ScoringError(
                gettext_noop("%(player)s is already out (%(place)s)."),
                player=self.name(player),
                place=ordinal(place),
            )
        if self.places_filled() and self.rules.needs_hands:
            raise ScoringError(
                gettext_noop(
                    "Play ended when the first player went out: record the other hands instead."
                )
            )
        if tap.loser:
            self.check_loser_tap(tap)
        last_to_go = len(self.untapped()) == 1
        hand = self.hands.get(player)
        if hand is not None and hand.cards > 0 and not (tap.loser or last_to_go):
            raise ScoringError(
                gettext_noop("%(player)s's hand is recorded with cards left; undo it first."),
                player=self.name(player),
            )
        self.check_not_played(tap)
        self.order.append(player)
        if tap.loser:
            self.loser_tapped = player
        for payer in tap.not_played:
            self.pay(payer, player, self.stake(GOT_TO_GET_IN_RATE), Reason.GOT_TO_GET_IN)

    def check_loser_tap(self, tap: Tap) -> None:
        if not self.places_filled():
            raise ScoringError(gettext_noop("Tap the loser once the scoring places are filled."))
        if self.loser() is not None:
            raise ScoringError(gettext_noop("The loser of this deal is already known."))
        if tap.not_played:
            raise ScoringError(
                gettext_noop("The loser did not go out, so nobody pays Got to Get In.")
            )

    def check_not_played(self, tap: Tap) -> None:
        if not tap.not_played:
            return
        if not self.rules.options.got_to_get_in:
            raise ScoringError(gettext_noop("Got to Get In is off for this session."))
        if len(set(tap.not_played)) != len(tap.not_played):
            raise ScoringError(gettext_noop("A player is marked as not yet played twice."))
        for other in tap.not_played:
            self.require_player(other)
            if other == tap.player:
                raise ScoringError(gettext_noop("The player going out has played their cards."))
            if other in self.order:
                raise ScoringError(
                    gettext_noop("%(player)s is already out, so they have played."),
                    player=self.name(other),
                )

    def apply_two_beaten(self, event: TwoBeaten) -> None:
        self.require_open()
        self.require_two_players(event.by, event.owner)
        if event.black < 0 or event.red < 0:
            raise ScoringError(gettext_noop("Counts of 2s cannot be negative."))
        if not 1 <= event.black + event.red <= MAX_TWOS_BEATEN:
            raise ScoringError(
                gettext_noop("One play beats 1 to 3 twos (four 2s cannot be beaten).")
            )
        self.count_twos(event.black, event.red)
        black_rate, red_rate = TWO_BEATEN_RATE[event.beaten_with]
        earning = self.stake(black_rate * event.black + red_rate * event.red)
        self.pay(event.owner, event.by, earning, Reason.TWO_BEATEN, penalty=True)
        if event.beaten_with is Beater.CUTUP:
            self.cutup_earning[event.by] = earning
        else:
            # Their last play is a bomb now: beating a bomb earns nothing extra.
            self.cutup_earning.pop(event.by, None)

    def apply_cutup_beaten(self, event: CutupBeaten) -> None:
        self.require_open()
        self.require_two_players(event.by, event.owner)
        beaten = self.cutup_earning.pop(event.owner, None)
        if beaten is None:
            raise ScoringError(
                gettext_noop(
                    "%(player)s has no cutup that beat a 2 in this deal: "
                    "there is nothing to double."
                ),
                player=self.name(event.owner),
            )
        earning = beaten * 2
        self.pay(event.owner, event.by, earning, Reason.CUTUP_BEATEN, penalty=True)
        self.cutup_earning[event.by] = earning

    def apply_hand(self, hand: Hand) -> None:
        # Under loser_pays a hand may follow the filing: it adds its penalties (SPEC 4).
        if self.filed() and (self.rules.needs_hands or self.instant_win is not None):
            raise ScoringError(gettext_noop("This deal is already filed."), conflict=True)
        self.require_player(hand.player)
        if hand.player in self.hands:
            raise ScoringError(
                gettext_noop("%(player)s's hand is already recorded."),
                player=self.name(hand.player),
            )
        if not self.holds_cards(hand.player):
            raise ScoringError(
                gettext_noop("%(player)s went out and holds no cards."),
                player=self.name(hand.player),
            )
        most_cards = min(self.rules.hand_size, max_hand_size(self.size))
        if not 0 <= hand.cards <= most_cards:
            raise ScoringError(gettext_noop("Cards left must be 0 to %(most)s."), most=most_cards)
        counts = (hand.black_twos, hand.red_twos, hand.cutups, hand.bombs)
        if min(counts) < 0:
            raise ScoringError(gettext_noop("Counts of unused cards cannot be negative."))
        if (
            hand.black_twos + hand.red_twos > hand.cards
            or hand.cutups * 6 > hand.cards
            or hand.bombs * 4 > hand.cards
        ):
            raise ScoringError(
                gettext_noop("The unused 2s, cutups and bombs do not fit in the cards left.")
            )
        self.count_twos(hand.black_twos, hand.red_twos)
        self.hands[hand.player] = hand

    def apply_guaransheed(self, declaration: Guaransheed) -> None:
        self.require_open()
        if not self.rules.options.guaransheed:
            raise ScoringError(gettext_noop("Guaransheed is off for this session."))
        self.require_player(declaration.player)
        if self.guaransheed is not None:
            raise ScoringError(gettext_noop("A Guaransheed is already declared on this deal."))
        if self.order:
            raise ScoringError(
                gettext_noop("A Guaransheed is declared before the first player goes out.")
            )
        self.guaransheed = declaration

    def apply_instant_win(self, claim: InstantWin) -> None:
        self.require_open()
        if not self.rules.options.instant_wins:
            raise ScoringError(gettext_noop("Instant wins are off for this session."))
        self.require_player(claim.player)
        if self.record_count:
            raise ScoringError(
                gettext_noop(
                    "An instant win is claimed before anything else is recorded on the deal."
                )
            )
        self.instant_win = claim

    # -- money --

    def pay(
        self,
        payer: PlayerId,
        payee: PlayerId,
        amount: Decimal,
        reason: Reason,
        *,
        penalty: bool = False,
    ) -> None:
        """Record a line paid during play (2s, cutups, Got to Get In)."""
        line = self.line(payer, payee, amount, reason, penalty=penalty)
        if line is not None:
            self.play_ledger.append(line)

    def line(
        self,
        payer: PlayerId,
        payee: PlayerId,
        amount: Decimal,
        reason: Reason,
        *,
        penalty: bool = False,
    ) -> LedgerLine | None:
        if not self.rules.moves_money or (penalty and not self.rules.penalties_on):
            return None
        if amount <= 0:
            return None
        return LedgerLine(payer=payer, payee=payee, amount=amount, reason=reason)

    def settled_ledger(self) -> list[LedgerLine | None]:
        """Lines decided at the end of the deal, for what is known by then."""
        winner = self.winner()
        others = [player for player in self.players if player != winner]
        if self.instant_win is not None:
            assert winner is not None
            return [
                self.line(player, winner, self.rules.stake, Reason.INSTANT_WIN) for player in others
            ]
        lines: list[LedgerLine | None] = []
        loser = self.loser()
        if self.rules.stake_rule is StakeRule.LOSER_PAYS and loser is not None:
            lines += [
                self.line(loser, player, self.rules.stake, Reason.LOSER_PAYS)
                for player in self.players
                if player != loser
            ]
        if winner is not None:
            for player in others:
                hand = self.hands.get(player)
                if hand is not None:
                    lines += self.hand_lines(hand, winner)
            lines += self.guaransheed_lines(winner)
        return lines

    def hand_lines(self, hand: Hand, winner: PlayerId) -> list[LedgerLine | None]:
        payer = hand.player
        lines: list[LedgerLine | None] = []
        if self.rules.stake_rule is StakeRule.PER_CARD:
            lines.append(
                self.line(payer, winner, self.stake(Decimal(hand.cards)), Reason.CARDS_LEFT)
            )
        elif self.rules.stake_rule is StakeRule.PRO_PLAY:
            rate = Decimal(2) if hand.cards > PRO_PLAY_BIG_HAND else Decimal(1)
            lines.append(self.line(payer, winner, self.stake(rate), Reason.PRO_PLAY_WIN))
        counts = {
            Reason.UNUSED_BLACK_TWO: hand.black_twos,
            Reason.UNUSED_RED_TWO: hand.red_twos,
            Reason.UNUSED_CUTUP: hand.cutups,
            Reason.UNUSED_BOMB: hand.bombs,
        }
        for reason, count in counts.items():
            amount = self.stake(UNUSED_RATE[reason] * count)
            lines.append(self.line(payer, winner, amount, reason, penalty=True))
        return lines

    def guaransheed_lines(self, winner: PlayerId) -> list[LedgerLine | None]:
        declaration = self.guaransheed
        if declaration is None:
            return []
        declarer = declaration.player
        others = [player for player in self.players if player != declarer]
        if declarer == winner:
            rate = Decimal(2) if declaration.blind else Decimal(1)
            return [
                self.line(player, declarer, self.stake(rate), Reason.GUARANSHEED_WON)
                for player in others
            ]
        return [
            self.line(
                declarer,
                player,
                self.stake(GUARANSHEED_LOST_RATE),
                Reason.GUARANSHEED_LOST,
            )
            for player in others
        ]

    # -- the result --

    def result(self) -> DealResult:
        filed = self.filed()
        if filed:
            status, why = DealStatus.FILED, self.filed_why()
        elif self.facts.ended:
            status, why = DealStatus.ENDED, Text(gettext_noop("Ended by End match."))
        else:
            status, why = DealStatus.OPEN, self.open_why()
        places = self.places()
        ledger: list[LedgerLine] = list(self.play_ledger)
        if status is DealStatus.ENDED and self.winner() is None:
            # An ended deal in which nobody went out counts nowhere (SPEC 3.3), its 2s
            # beaten included: standings, balances and the ledger all agree on that.
            ledger = []
        elif status is not DealStatus.OPEN:
            ledger += [line for line in self.settled_ledger() if line is not None]
        return DealResult(
            status=status,
            why=why,
            places=places,
            points={
                player: points_for(self.rules, places.get(player, 0)) for player in self.players
            },
            winner=self.winner(),
            loser=self.loser(),
            ledger=tuple(ledger),
        )

    def filed_why(self) -> Text:
        if self.instant_win is not None:
            return Text(
                gettext_noop("%(player)s won outright."),
                {"player": self.name(self.instant_win.player)},
            )
        if self.rules.needs_hands:
            return Text(gettext_noop("The winner is out and every other hand is recorded."))
        if self.rules.stake_rule is StakeRule.LOSER_PAYS:
            return Text(gettext_noop("The scoring places are filled and the loser is known."))
        return Text(gettext_noop("The scoring places are filled."))

    def open_why(self) -> Text:
        if not self.places_filled():
            return Text(
                gettext_noop("Waiting for %(place)s place."),
                {"place": ordinal(len(self.order) + 1)},
            )
        if self.rules.needs_hands:
            missing = ", ".join(str(self.name(player)) for player in self.hands_missing())
            return Text(gettext_noop("Waiting for the hands of %(players)s."), {"players": missing})
        return Text(gettext_noop("Waiting for the loser."))


def play(facts: DealFacts) -> DealResult:
    """Replay every record of the deal, checking each, and return what it comes to.

    Raises ScoringError on the first record the rules refuse.
    """
    deal = _Deal(facts=facts)
    if len(set(facts.players)) != len(facts.players):
        raise ScoringError(gettext_noop("A player is seated twice in this deal."))
    if not MIN_PLAYERS <= len(facts.players) <= MAX_PLAYERS:
        raise ScoringError(gettext_noop("A deal has 2 to 8 players."))
    for record in facts.records:
        deal.apply(record)
    return deal.result()


def add_record(facts: DealFacts, record: Record) -> tuple[DealFacts, DealResult]:
    """The deal with one more record, checked; raises ScoringError if refused."""
    if facts.ended:
        raise ScoringError(gettext_noop("This deal was ended with End match."), conflict=True)
    extended = replace(facts, records=(*facts.records, record))
    return extended, play(extended)


def end_match(facts: DealFacts) -> tuple[DealFacts, DealResult]:
    """Close an open deal with the taps it has (SPEC 3.3)."""
    if facts.ended:
        raise ScoringError(
            gettext_noop("This deal was already ended with End match."), conflict=True
        )
    if play(facts).closed:
        raise ScoringError(gettext_noop("This deal is already filed."), conflict=True)
    ended = replace(facts, ended=True)
    return ended, play(ended)
