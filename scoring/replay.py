"""Replaying a deal: the state its records leave, built one record at a time, each checked
against the state the records before it left (SPEC 3 and 4).

`DealState` is what `play` derives the result from and what `allowed` reads to say what
may come next, so both agree with the checks here that refuse a record.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

from scoring import money
from scoring.chain import CutupChain
from scoring.errors import ScoringError
from scoring.facts import (
    CutupBeaten,
    DealFacts,
    DealStatus,
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
from scoring.hands import check_hand, check_whole_hand
from scoring.table import (
    MAX_PLAYERS,
    MAX_TWOS_BEATEN,
    MIN_PLAYERS,
    TWO_PACKS_NO_INSTANT_WINS,
    TWOS_PER_COLOUR_PER_DECK,
    decks_for,
    most_cards,
    one_pack,
    podium_size,
)
from scoring.text import Text, gettext_noop, ordinal


def replay(facts: DealFacts) -> DealState:
    """The state after every record of the deal; raises ScoringError on the first record
    the rules refuse."""
    deal = DealState(facts=facts)
    if len(set(facts.players)) != len(facts.players):
        raise ScoringError(gettext_noop("A player is seated twice in this deal."))
    if not MIN_PLAYERS <= len(facts.players) <= MAX_PLAYERS:
        raise ScoringError(gettext_noop("A deal has 2 to 8 players."))
    for record in facts.records:
        deal.apply(record)
    return deal


@dataclass
class DealState:
    """The state of a deal after some of its records, built one record at a time."""

    facts: DealFacts
    order: list[PlayerId] = field(default_factory=list)  # tapped players, in tap order
    loser_tapped: PlayerId | None = None
    hands: dict[PlayerId, Hand] = field(default_factory=dict)
    # Marked "not yet played" on the tap that ended play: they hold the whole hand dealt.
    whole_hands: frozenset[PlayerId] = frozenset()
    guaransheed: Guaransheed | None = None
    instant_win: InstantWin | None = None
    # Each player's last earning play while it stands: a cutup, or a bomb (SPEC 4.1).
    chain: CutupChain = field(default_factory=CutupChain)
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
    def most(self) -> int:
        """The most cards a hand holds: what each player was dealt."""
        return most_cards(self.rules, self.size)

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

    def play_over(self) -> bool:
        """Play has ended: at the first player out under rules that need hands, else when
        the deal files (the scored places filled, the loser known where it pays)."""
        return self.places_filled() and (self.rules.needs_hands or self.filed())

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

    def status(self) -> DealStatus:
        if self.filed():
            return DealStatus.FILED
        return DealStatus.ENDED if self.facts.ended else DealStatus.OPEN

    def name(self, player: PlayerId) -> str | Text:
        return self.facts.name(player)

    def stake(self, rate: Decimal) -> Decimal:
        return money.stakes(self.rules, rate)

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

    def hand_blocks_tap(self, player: PlayerId, *, loser: bool) -> bool:
        """A hand recorded with cards left says the player still holds them: only a tap
        that makes them the loser (a loser tap, or the last one left) agrees with it."""
        hand = self.hands.get(player)
        last_to_go = len(self.untapped()) == 1
        return hand is not None and hand.cards > 0 and not (loser or last_to_go)

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
        if self.hand_blocks_tap(player, loser=tap.loser):
            raise ScoringError(
                gettext_noop("%(player)s's hand is recorded with cards left; undo it first."),
                player=self.name(player),
            )
        self.check_not_played(tap)
        self.order.append(player)
        if tap.loser:
            self.loser_tapped = player
        for payer in tap.not_played:
            self.pay(payer, player, self.stake(money.GOT_TO_GET_IN_RATE), Reason.GOT_TO_GET_IN)
        if self.play_over():  # whoever this tap marks never played: they hold every card
            self.whole_hands = frozenset(tap.not_played)
            for other in self.whole_hands & self.hands.keys():
                check_whole_hand(self.hands[other], most=self.most, name=self.name(other))

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
        black_rate, red_rate = money.TWO_BEATEN_RATE[event.beaten_with]
        earning = self.stake(black_rate * event.black + red_rate * event.red)
        self.pay(event.owner, event.by, earning, Reason.TWO_BEATEN, penalty=True)
        self.chain.earned(event.by, event.beaten_with, earning)

    def apply_cutup_beaten(self, event: CutupBeaten) -> None:
        self.require_open()
        self.require_two_players(event.by, event.owner)
        earning = self.chain.beat(event.owner, name=self.name(event.owner))
        self.pay(event.owner, event.by, earning, Reason.CUTUP_BEATEN, penalty=True)
        self.chain.earned(event.by, event.beaten_with, earning)

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
        whole = hand.player in self.whole_hands
        check_hand(hand, most=self.most, whole=whole, name=self.name(hand.player))
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
        if not one_pack(self.size):
            # Whatever the session's options say (seed 000, Double Deck 13).
            raise ScoringError(TWO_PACKS_NO_INSTANT_WINS)
        if not self.rules.options.instant_wins:
            raise ScoringError(gettext_noop("Instant wins are off for this session."))
        if claim.kind not in self.rules.options.instant_win_kinds():
            raise ScoringError(
                gettext_noop(
                    "5 consecutive pairs is not an instant win at this session: its option is off."
                )
            )
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
        line = money.line(self.rules, payer, payee, amount, reason, penalty=penalty)
        if line is not None:
            self.play_ledger.append(line)
