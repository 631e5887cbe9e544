"""Settlement (SPEC 5): balances from ledgers, and the fewest transfers that clear them."""

import random
from collections.abc import Mapping
from decimal import Decimal, localcontext
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.facts import LedgerLine, PlayerId, Reason, Transfer
from scoring.settlement import (
    EXACT_LIMIT,
    SettlementError,
    balances_from_ledger,
    settle,
)

A, B, C, D = 1, 2, 3, 4


def balances_of(*values: str | int) -> dict[PlayerId, Decimal]:
    """Players 1, 2, 3, ... with these balances."""
    return {player: Decimal(value) for player, value in enumerate(values, start=1)}


def apply(
    balances: Mapping[PlayerId, Decimal], transfers: tuple[Transfer, ...]
) -> dict[PlayerId, Decimal]:
    """The balances after the transfers: a payer's balance rises, a payee's falls."""
    after = dict(balances)
    with localcontext(prec=100):  # exact for the amounts used here
        for transfer in transfers:
            after[transfer.payer] += transfer.amount
            after[transfer.payee] -= transfer.amount
    return after


def assert_settles(balances: Mapping[PlayerId, Decimal], transfers: tuple[Transfer, ...]) -> None:
    assert all(value == 0 for value in apply(balances, transfers).values())
    for transfer in transfers:
        assert transfer.amount > 0
        assert transfer.payer != transfer.payee
        assert balances[transfer.payer] < 0 < balances[transfer.payee]
    assert list(transfers) == sorted(transfers, key=lambda t: (t.payer, t.payee))


def fewest_transfers(values: list[Decimal]) -> int:
    """Brute force: non-zero count minus the most zero-sum groups that split them."""
    nonzero = [value for value in values if value != 0]
    n = len(nonzero)

    @cache
    def most_groups(remaining: int) -> int:
        # Most zero-sum groups splitting `remaining` (a bitmask summing to zero): the
        # lowest member is in some zero-sum group; try every one.
        if remaining == 0:
            return 0
        lowest = remaining & -remaining
        best = 0
        rest = remaining ^ lowest
        sub = rest
        while True:
            group = sub | lowest
            if sum(nonzero[i] for i in range(n) if group >> i & 1) == 0:
                best = max(best, 1 + most_groups(remaining ^ group))
            if sub == 0:
                break
            sub = (sub - 1) & rest
        return best

    return n - most_groups((1 << n) - 1)


# --- SPEC 10, example G -----------------------------------------------------------------


def test_settle_example_g_two_transfers_not_three() -> None:
    balances = {A: Decimal(5), B: Decimal(3), C: Decimal(-3), D: Decimal(-5)}

    assert settle(balances) == (
        Transfer(payer=C, payee=B, amount=Decimal(3)),
        Transfer(payer=D, payee=A, amount=Decimal(5)),
    )


# --- Input ------------------------------------------------------------------------------


def test_settle_unbalanced_raises_with_the_sum() -> None:
    with pytest.raises(SettlementError, match=r"sum to 0\.50\).*missing a line"):
        settle({A: Decimal("1.25"), B: Decimal("-0.75")})


def test_settle_unbalanced_by_a_thousandth_raises() -> None:
    with pytest.raises(SettlementError, match=r"sum to -0\.001\)"):
        settle({A: Decimal("2"), B: Decimal("-1.001"), C: Decimal("-1")})


def test_settle_single_nonzero_balance_raises() -> None:
    with pytest.raises(SettlementError):
        settle({A: Decimal("3"), B: Decimal("0")})


def test_settlement_error_is_a_value_error() -> None:
    assert issubclass(SettlementError, ValueError)


@pytest.mark.parametrize("bad", ["NaN", "Infinity", "-Infinity"])
def test_settle_non_finite_balance_raises(bad: str) -> None:
    with pytest.raises(SettlementError):
        settle({A: Decimal(bad), B: Decimal(0)})


def test_settle_empty_balances_no_transfers() -> None:
    assert settle({}) == ()


def test_settle_all_zero_balances_no_transfers() -> None:
    assert settle({A: Decimal(0), B: Decimal("0.00"), C: Decimal("-0")}) == ()


def test_settle_zero_balances_ignored() -> None:
    balances = {A: Decimal(0), B: Decimal(4), C: Decimal(0), D: Decimal(-4)}

    assert settle(balances) == (Transfer(payer=D, payee=B, amount=Decimal(4)),)


# --- Exactness and determinism ----------------------------------------------------------


def test_settle_three_decimal_amounts_exact() -> None:
    balances = balances_of("0.125", "1.333", "-0.458", "-1.000")

    transfers = settle(balances)

    assert_settles(balances, transfers)
    assert len(transfers) == 3  # no zero-sum pair or triple: one group of four
    assert sum(t.amount for t in transfers) == Decimal("1.458")


def test_settle_three_decimal_pairs_found() -> None:
    balances = balances_of("0.125", "-0.125", "1.001", "-1.001")

    assert settle(balances) == (
        Transfer(payer=2, payee=1, amount=Decimal("0.125")),
        Transfer(payer=4, payee=3, amount=Decimal("1.001")),
    )


def test_settle_mixed_decimal_places_equal_values_match() -> None:
    balances = {A: Decimal("1.5"), B: Decimal("-1.500")}

    assert settle(balances) == (Transfer(payer=B, payee=A, amount=Decimal("1.5")),)


def test_settle_large_amounts_not_rounded() -> None:
    balances = {
        A: Decimal("123456789012345678901234567890.123"),
        B: Decimal("-0.001"),
        C: Decimal("-123456789012345678901234567890.122"),
    }

    transfers = settle(balances)

    assert_settles(balances, transfers)
    assert len(transfers) == 2


def test_settle_dict_order_same_transfers() -> None:
    balances = balances_of(7, -2, "3.5", -4, "-1.5", 2, -5)
    reordered = dict(reversed(list(balances.items())))

    assert settle(reordered) == settle(balances)


def test_settle_player_ids_not_consecutive() -> None:
    balances = {42: Decimal(5), 7: Decimal(-2), 1000: Decimal(-3)}

    assert settle(balances) == (
        Transfer(payer=7, payee=42, amount=Decimal(2)),
        Transfer(payer=1000, payee=42, amount=Decimal(3)),
    )


# --- The fewest transfers ---------------------------------------------------------------


def test_settle_one_debtor_many_creditors_n_minus_one() -> None:
    balances = balances_of(1, 2, 3, 4, -10)

    transfers = settle(balances)

    assert_settles(balances, transfers)
    assert len(transfers) == 4


def test_settle_groups_beyond_pairs_found() -> None:
    # {+1, +2, -3} and {+4, +5, -9}: 4 transfers, where one big group would take 5.
    balances = balances_of(1, 4, 2, 5, -9, -3)

    transfers = settle(balances)

    assert_settles(balances, transfers)
    assert len(transfers) == 4


def test_settle_twenty_plus_and_minus_ones_ten_transfers() -> None:
    balances = balances_of(*[1] * 10, *[-1] * 10)

    transfers = settle(balances)

    assert_settles(balances, transfers)
    assert len(transfers) == 10


def test_settle_twenty_threes_and_twos_sixteen_transfers() -> None:
    # 8 x +3 and 12 x -2: many zero-sum subsets, no opposite pairs; best is 4 groups of
    # {+3, +3, -2, -2, -2}, so 20 - 4 transfers.
    balances = balances_of(*[3] * 8, *[-2] * 12)

    transfers = settle(balances)

    assert_settles(balances, transfers)
    assert len(transfers) == 16


def test_settle_twenty_triples_fourteen_transfers() -> None:
    # Five {+1, +2, -3} and one {+1, +1, +1, +1, -4}: 6 groups, 20 - 6 transfers.
    balances = balances_of(*[1, 2, -3] * 5, 1, 1, 1, 1, -4)

    transfers = settle(balances)

    assert_settles(balances, transfers)
    assert len(transfers) == 14


def test_settle_twenty_distinct_halves_settles() -> None:
    # Many zero-sum subsets of distinct amounts, none of them an opposite pair.
    values = [Decimal(i) for i in range(1, 11)]
    values += [Decimal(i) - Decimal("0.5") for i in range(-8, 1)] + [Decimal("-14.5")]
    balances = dict(enumerate(values, start=1))

    transfers = settle(balances)

    assert_settles(balances, transfers)
    assert len(transfers) <= len(values) - 1


def test_settle_opposite_pairs_beyond_limit_still_fewest() -> None:
    # 32 balances: 13 opposite pairs, and {+20, +25, -45} and {+31, +32, -63} left over.
    balances = balances_of(*range(1, 14), *range(-1, -14, -1), 20, 31, 25, -63, 32, -45)

    transfers = settle(balances)

    assert len(balances) > EXACT_LIMIT
    assert_settles(balances, transfers)
    assert len(transfers) == 13 + 2 + 2


def test_settle_more_than_limit_greedy_clears_within_n_minus_one() -> None:
    # 26 distinct positives and 1 debtor: no pairs to take off, so the greedy fallback.
    positives = [Decimal(2**i) / 1000 for i in range(EXACT_LIMIT + 6)]
    balances = dict(enumerate([*positives, -sum(positives, Decimal(0))], start=1))

    transfers = settle(balances)

    assert len(balances) > EXACT_LIMIT
    assert_settles(balances, transfers)
    assert len(transfers) == len(balances) - 1


# --- Balances from a ledger -------------------------------------------------------------


def test_balances_from_ledger_received_minus_paid() -> None:
    lines = [
        LedgerLine(payer=B, payee=A, amount=Decimal("2.50"), reason=Reason.LOSER_PAYS),
        LedgerLine(payer=C, payee=A, amount=Decimal("1.25"), reason=Reason.CARDS_LEFT),
        LedgerLine(payer=A, payee=C, amount=Decimal("0.75"), reason=Reason.TWO_BEATEN),
    ]

    assert balances_from_ledger(lines) == {
        A: Decimal("3.00"),
        B: Decimal("-2.50"),
        C: Decimal("-0.50"),
    }


def test_balances_from_ledger_zero_net_players_kept() -> None:
    lines = [
        LedgerLine(payer=A, payee=B, amount=Decimal(2), reason=Reason.LOSER_PAYS),
        LedgerLine(payer=B, payee=A, amount=Decimal(2), reason=Reason.LOSER_PAYS),
        LedgerLine(payer=C, payee=D, amount=Decimal(1), reason=Reason.CARDS_LEFT),
    ]

    assert balances_from_ledger(lines) == {
        A: Decimal(0),
        B: Decimal(0),
        C: Decimal(-1),
        D: Decimal(1),
    }


def test_balances_from_ledger_empty_no_players() -> None:
    assert balances_from_ledger([]) == {}


def test_balances_from_ledger_settles_to_fewest() -> None:
    lines = [
        LedgerLine(payer=C, payee=A, amount=Decimal(2), reason=Reason.LOSER_PAYS),
        LedgerLine(payer=C, payee=B, amount=Decimal(1), reason=Reason.CARDS_LEFT),
        LedgerLine(payer=D, payee=A, amount=Decimal(3), reason=Reason.LOSER_PAYS),
        LedgerLine(payer=D, payee=B, amount=Decimal(2), reason=Reason.CARDS_LEFT),
        LedgerLine(payer=D, payee=C, amount=Decimal(1), reason=Reason.TWO_BEATEN),
    ]
    balances = balances_from_ledger(lines)

    assert balances == {A: Decimal(5), B: Decimal(3), C: Decimal(-2), D: Decimal(-6)}
    assert len(settle(balances)) == 3


# --- Properties -------------------------------------------------------------------------

# Few distinct amounts, so that zero-sum groups (and opposite pairs) actually occur.
AMOUNTS = [
    Decimal(text)
    for text in ("0", "0.125", "0.5", "1", "1.5", "2", "3", "-0.125", "-0.5", "-1", "-2", "-3")
]


@st.composite
def balanced(
    draw: st.DrawFn, max_size: int, amounts: list[Decimal] = AMOUNTS
) -> dict[int, Decimal]:
    """Balances summing to zero: drawn amounts and one more that evens them out."""
    head = draw(st.lists(st.sampled_from(amounts), max_size=max_size - 1))
    values = [*head, -sum(head, Decimal(0))]
    players = draw(
        st.lists(
            st.integers(min_value=1, max_value=500),
            min_size=len(values),
            max_size=len(values),
            unique=True,
        )
    )
    return dict(zip(players, values, strict=True))


@settings(max_examples=300, deadline=None)
@given(balanced(max_size=8))
def test_settle_property_fewest_transfers_clear_exactly(balances: dict[int, Decimal]) -> None:
    transfers = settle(balances)

    assert_settles(balances, transfers)
    assert len(transfers) == fewest_transfers(list(balances.values()))


@settings(max_examples=60, deadline=None)
@given(balanced(max_size=EXACT_LIMIT))
def test_settle_property_up_to_limit_clears_within_n_minus_one(
    balances: dict[int, Decimal],
) -> None:
    transfers = settle(balances)

    assert_settles(balances, transfers)
    assert len(transfers) <= max(0, sum(1 for v in balances.values() if v != 0) - 1)


@settings(max_examples=30, deadline=None)
@given(
    balanced(
        max_size=40,
        amounts=[Decimal(n) / 1000 for n in range(-5000, 5001, 37)],
    )
)
def test_settle_property_any_size_clears_within_n_minus_one(balances: dict[int, Decimal]) -> None:
    transfers = settle(balances)

    assert_settles(balances, transfers)
    assert len(transfers) <= max(0, sum(1 for v in balances.values() if v != 0) - 1)


@settings(max_examples=100, deadline=None)
@given(balanced(max_size=12), st.randoms(use_true_random=False))
def test_settle_property_dict_order_irrelevant(
    balances: dict[int, Decimal], rng: random.Random
) -> None:
    items = list(balances.items())
    rng.shuffle(items)

    assert settle(dict(items)) == settle(balances)


@settings(max_examples=100, deadline=None)
@given(balanced(max_size=10))
def test_balances_from_ledger_property_settlement_round_trips(
    balances: dict[int, Decimal],
) -> None:
    # A ledger of just the settlement's payments nets to the balances it settles.
    lines = [
        LedgerLine(payer=t.payer, payee=t.payee, amount=t.amount, reason=Reason.LOSER_PAYS)
        for t in settle(balances)
    ]
    netted = balances_from_ledger(lines)

    assert {p: v for p, v in netted.items() if v != 0} == {
        p: v for p, v in balances.items() if v != 0
    }
