"""What beat a cutup (seed 000's Pro-Play point system): "Cutting or bombing another cutup
results in double the points the other player received for his/her cutup". A cutup that
did the beating can be beaten again for double; a bomb's earning cannot, as a bomb beating
a bomb earns nothing more. SPEC 4.1 and docs/rules.md "2s, cutups and bombs"."""

from decimal import Decimal

import pytest

from scoring import (
    Beater,
    CutupBeaten,
    DealFacts,
    Format,
    LedgerLine,
    Reason,
    Rules,
    ScoringError,
    StakeRule,
    Tap,
    TwoBeaten,
    allowed,
    correct,
    play,
)

ALICE, BEN, CARA, DEV = 1, 2, 3, 4
FOUR = (ALICE, BEN, CARA, DEV)
NAMES = {ALICE: "Alice", BEN: "Ben", CARA: "Cara", DEV: "Dev"}
CUTUP, BOMB = Beater.CUTUP, Beater.BOMB
PRO_PLAY = Rules(format=Format.WINNER_TAKES_ALL, stake_rule=StakeRule.PRO_PLAY)
BEN_CUTS = TwoBeaten(by=BEN, owner=ALICE, beaten_with=CUTUP, red=1)  # Ben earns 1.5


def facts(*records) -> DealFacts:
    return DealFacts(players=FOUR, rules=PRO_PLAY, records=records, names=NAMES)


def ledger(*records) -> tuple[LedgerLine, ...]:
    return play(facts(*records)).ledger


def refusal(*records) -> str:
    with pytest.raises(ScoringError) as caught:
        play(facts(*records))
    return caught.value.message


def line(payer, payee, amount) -> LedgerLine:
    reason = Reason.TWO_BEATEN if amount == "1.5" else Reason.CUTUP_BEATEN
    return LedgerLine(payer=payer, payee=payee, amount=Decimal(amount), reason=reason)


def test_cutup_beaten_with_a_bomb_earns_double():
    assert ledger(BEN_CUTS, CutupBeaten(by=CARA, owner=BEN, beaten_with=BOMB)) == (
        line(ALICE, BEN, "1.5"),
        line(BEN, CARA, "3"),
    )


def test_cutup_beaten_with_a_bomb_is_not_doubled_again():
    message = refusal(
        BEN_CUTS,
        CutupBeaten(by=CARA, owner=BEN, beaten_with=BOMB),
        CutupBeaten(by=DEV, owner=CARA, beaten_with=BOMB),
    )

    assert message == (
        "Cara's last play that earned was a bomb, and beating a bomb earns nothing more."
    )


def test_cutup_beaten_with_a_cutup_is_doubled_again():
    assert ledger(
        BEN_CUTS,
        CutupBeaten(by=CARA, owner=BEN, beaten_with=CUTUP),
        CutupBeaten(by=DEV, owner=CARA, beaten_with=BOMB),
    ) == (line(ALICE, BEN, "1.5"), line(BEN, CARA, "3"), line(CARA, DEV, "6"))


def test_cutup_chain_ends_at_the_first_bomb():
    records = (
        BEN_CUTS,
        CutupBeaten(by=CARA, owner=BEN, beaten_with=CUTUP),
        CutupBeaten(by=DEV, owner=CARA, beaten_with=BOMB),
    )

    assert refusal(*records, CutupBeaten(by=ALICE, owner=DEV, beaten_with=CUTUP)).startswith(
        "Dev's last play that earned was a bomb"
    )
    assert allowed(facts(*records)).cutup_owners == ()


def test_cutup_bomb_wipes_out_the_bombers_own_standing_cutup():
    # Cara's cutup earned on Dev's 2; then she bombs Ben's cutup: her last play is a bomb.
    records = (
        TwoBeaten(by=CARA, owner=DEV, beaten_with=CUTUP, black=1),
        BEN_CUTS,
        CutupBeaten(by=CARA, owner=BEN, beaten_with=BOMB),
    )

    assert allowed(facts(*records)).cutup_owners == ()
    assert refusal(*records, CutupBeaten(by=ALICE, owner=CARA)).startswith(
        "Cara's last play that earned was a bomb"
    )


def test_cutup_beaten_without_a_beater_is_a_cutup():
    """SPEC 9's `cutup_beaten` names `by` and `owner` only: the beater is a cutup."""
    assert CutupBeaten(by=CARA, owner=BEN).beaten_with is CUTUP
    assert ledger(BEN_CUTS, CutupBeaten(by=CARA, owner=BEN), CutupBeaten(by=DEV, owner=CARA))[
        -1
    ] == line(CARA, DEV, "6")


def test_cutup_owners_are_those_whose_earning_cutup_stands_in_seat_order():
    records = (
        TwoBeaten(by=DEV, owner=ALICE, beaten_with=CUTUP, black=1),
        BEN_CUTS,
        TwoBeaten(by=CARA, owner=ALICE, beaten_with=BOMB, black=1),
    )
    offered = allowed(facts(*records))

    assert (offered.cutup_beaten, offered.cutup_owners) == (True, (BEN, DEV))
    offered = allowed(facts(*records, CutupBeaten(by=ALICE, owner=BEN, beaten_with=CUTUP)))
    assert offered.cutup_owners == (ALICE, DEV)


def test_cutup_owners_on_a_filed_deal_offer_a_correction():
    filed = facts(BEN_CUTS, CutupBeaten(by=CARA, owner=BEN, beaten_with=BOMB), Tap(DEV))
    filed = DealFacts(players=FOUR, rules=PRO_PLAY, records=filed.records, ended=True)

    assert allowed(filed).cutup_owners == ()
    with pytest.raises(ScoringError, match="beating a bomb earns nothing more"):
        correct(filed, add=[CutupBeaten(by=ALICE, owner=CARA)])
