"""Settlement (SPEC 5): the fewest transfers that bring every balance to zero.

A player's balance is received minus paid. Settling `n` non-zero balances takes at least
`n - k` transfers, where `k` is the largest number of zero-sum groups the balances can be
split into: a group of `m` balances needs `m - 1` transfers, and no fewer. So settling
optimally means finding that best split, then paying within each group.

How the split is found:

1. Zero balances are dropped. A balance `+x` and a balance `-x` are paired off first: some
   best split always has that pair as a group of its own (if `+x` and `-x` sit in groups
   `G` and `H`, regrouping into `{+x, -x}` and the rest of `G` and `H` keeps the count).
2. Up to `EXACT_LIMIT` balances are left: the best split is computed exactly. Sets of
   balances are bitmasks; a set of bitmasks is one Python integer with one bit per mask,
   so each step below is a few dozen big-integer operations, whatever the amounts.
   - `Z`, every non-empty zero-sum set, is found by meet in the middle (subset sums of
     each half, each half's sum looked up against the other's).
   - `L1 = Z`, and `L(j+1)` = the sets in `Z` with a proper subset in `Lj` (sum over
     subsets with shifts). `Lj` holds the sets that split into at least `j` zero-sum
     groups; `k` is the last `j` whose `Lj` holds the whole set.
   - Walking back down picks, at each level, the largest proper subset in the level
     below; the difference is one group.
3. Beyond that (more than `EXACT_LIMIT` balances left after pairing) all of them form one
   group: at most `n - 1` transfers, not always the fewest.

Within a group the largest debt pays the largest credit (ties: lower player id first) the
smaller of the two, which clears one of them: `m - 1` transfers at most.

Amounts are worked in exact integer units (the finest decimal place present), so nothing
is rounded. The same balances give the same transfers, whatever order the mapping is in:
balances are taken by player id and the transfers come out sorted by payer, then payee.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from decimal import MAX_EMAX, MAX_PREC, MIN_EMIN, Context, Decimal, localcontext

from scoring.facts import LedgerLine, PlayerId, Transfer

EXACT_LIMIT = 20
"""Most non-zero balances (left after pairing `+x` with `-x`) that are settled exactly."""

# Adding, subtracting and scaling Decimals in this context never rounds.
EXACT = Context(prec=MAX_PREC, Emax=MAX_EMAX, Emin=MIN_EMIN)
_EXACT = EXACT

_Entry = tuple[PlayerId, int]
"""A player and their balance in integer units."""


class SettlementError(ValueError):
    """Balances that cannot be settled; the message is a sentence for people."""


def balances_from_ledger(lines: Iterable[LedgerLine]) -> dict[PlayerId, Decimal]:
    """Each player's net over the ledger lines: received minus paid, exact.

    Every player named on a line is in the result, even when their net is zero.
    """
    balances: dict[PlayerId, Decimal] = {}
    with localcontext(_EXACT):
        for line in lines:
            balances[line.payer] = balances.get(line.payer, Decimal(0)) - line.amount
            balances[line.payee] = balances.get(line.payee, Decimal(0)) + line.amount
    return balances


def settle(balances: Mapping[PlayerId, Decimal]) -> tuple[Transfer, ...]:
    """The fewest transfers that bring every balance to exactly zero.

    Zero balances are ignored. Balances that do not sum to zero raise `SettlementError`:
    the difference is never absorbed by anyone.
    """
    players = sorted(balances)
    places = max((_decimal_places(p, balances[p]) for p in players), default=0)
    units = {p: _to_units(balances[p], places) for p in players}

    total = sum(units.values())
    if total != 0:
        raise SettlementError(
            f"The balances do not add up to zero (they sum to {_from_units(total, places):f});"
            " a ledger is missing a line."
        )

    entries = [(p, units[p]) for p in players if units[p] != 0]
    groups, rest = _pair_opposites(entries)
    if len(rest) <= EXACT_LIMIT:
        groups.extend(_best_split(rest))
    else:
        groups.append(rest)

    moves = sorted(move for group in groups for move in _pay_within(group))
    return tuple(
        Transfer(payer=payer, payee=payee, amount=_from_units(amount, places))
        for payer, payee, amount in moves
    )


# --- Exact amounts ----------------------------------------------------------------------


def _decimal_places(player: PlayerId, value: Decimal) -> int:
    exponent = value.as_tuple().exponent
    if not isinstance(exponent, int):
        raise SettlementError(f"Player {player} has no usable balance ({value}).")
    return max(0, -exponent)


def _to_units(value: Decimal, places: int) -> int:
    return int(value.scaleb(places, _EXACT))


def _from_units(units: int, places: int) -> Decimal:
    return Decimal(units).scaleb(-places, _EXACT)


# --- Splitting into zero-sum groups -----------------------------------------------------


def _pair_opposites(entries: list[_Entry]) -> tuple[list[list[_Entry]], list[_Entry]]:
    """Groups of two (`+x` with `-x`, by player id), and the entries left over."""
    by_value: dict[int, list[PlayerId]] = {}
    for player, value in entries:  # entries are in player id order
        by_value.setdefault(value, []).append(player)

    pairs: list[list[_Entry]] = []
    paired: set[PlayerId] = set()
    for value in sorted(v for v in by_value if v > 0):
        for creditor, debtor in zip(by_value[value], by_value.get(-value, []), strict=False):
            pairs.append([(creditor, value), (debtor, -value)])
            paired.update((creditor, debtor))
    return pairs, [entry for entry in entries if entry[0] not in paired]


def _best_split(entries: list[_Entry]) -> list[list[_Entry]]:
    """The most zero-sum groups `entries` (summing to zero) split into; exact."""
    n = len(entries)
    if n == 0:
        return []
    full = (1 << n) - 1
    without = [_masks_without(i, n) for i in range(n)]
    zero_sum = _zero_sum_masks([value for _, value in entries])

    levels = [zero_sum]  # levels[j - 1] holds the sets that split into >= j groups
    while True:
        deeper = zero_sum & _proper_supersets(levels[-1], without)
        if not deeper >> full & 1:
            break
        levels.append(deeper)

    masks: list[int] = []
    remaining = full
    for level in reversed(levels[:-1]):
        inside = (1 << (full + 1)) - 1
        for i in range(n):
            if not remaining >> i & 1:
                inside &= without[i]
        candidates = level & inside & ~(1 << remaining)
        subset = candidates.bit_length() - 1
        masks.append(remaining ^ subset)
        remaining = subset
    masks.append(remaining)

    return [[entries[i] for i in range(n) if mask >> i & 1] for mask in masks]


def _subset_sums(values: list[int]) -> list[int]:
    """`sums[mask]` = the sum of the values whose bits are set in `mask`."""
    sums = [0]
    for value in values:
        sums += [s + value for s in sums]
    return sums


def _zero_sum_masks(values: list[int]) -> int:
    """One bit per non-empty subset of `values` (bit `mask` set) that sums to zero."""
    low = len(values) // 2
    width = 1 << low
    rows: dict[int, int] = {}  # sum -> the low-half masks with that sum, as bits
    for mask, total in enumerate(_subset_sums(values[:low])):
        rows[total] = rows.get(total, 0) | (1 << mask)

    # Row `high` (the low-half masks completing high-half mask `high` to zero) lands at
    # bits `high * width + low_mask`, i.e. at the full mask `high << low | low_mask`.
    row_sums = _subset_sums(values[low:])
    if width >= 8:
        chunk = width // 8
        packed = b"".join(rows.get(-total, 0).to_bytes(chunk, "little") for total in row_sums)
        found = int.from_bytes(packed, "little")
    else:
        found = 0
        for total in reversed(row_sums):
            found = found << width | rows.get(-total, 0)
    return found & ~1  # the empty set is no group


def _masks_without(i: int, n: int) -> int:
    """One bit per mask over `n` elements that leaves out element `i`."""
    size = 1 << n
    step = 1 << i
    pattern = (1 << step) - 1
    period = step << 1
    while period < size:
        pattern |= pattern << period
        period <<= 1
    return pattern


def _proper_supersets(masks: int, without: list[int]) -> int:
    """One bit per mask that strictly contains a mask of `masks`."""
    up = masks
    for i, lacking in enumerate(without):
        up |= (up & lacking) << (1 << i)
    strict = 0
    for i, lacking in enumerate(without):
        strict |= (up & lacking) << (1 << i)
    return strict


# --- Paying within a group --------------------------------------------------------------


def _pay_within(group: list[_Entry]) -> list[tuple[PlayerId, PlayerId, int]]:
    """Largest debt pays largest credit until the group (summing to zero) is clear."""
    debts = {player: -value for player, value in group if value < 0}
    credits = {player: value for player, value in group if value > 0}
    moves: list[tuple[PlayerId, PlayerId, int]] = []
    while debts and credits:
        debtor = min(debts, key=lambda p: (-debts[p], p))
        creditor = min(credits, key=lambda p: (-credits[p], p))
        amount = min(debts[debtor], credits[creditor])
        moves.append((debtor, creditor, amount))
        debts[debtor] -= amount
        credits[creditor] -= amount
        if debts[debtor] == 0:
            del debts[debtor]
        if credits[creditor] == 0:
            del credits[creditor]
    return moves
