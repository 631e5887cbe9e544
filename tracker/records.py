"""Stored rows <-> scoring facts, for the services (which write them) and the selectors
(which read them) alike.

A deal's taps and events are rows; `scoring` works on `DealFacts`. This module turns one
into the other, and reads a deal as its screens and the API show it (`DealState`). What
the ledger and payments add up to is `tracker.money`.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, cast

from django.db import connection
from django.db.models import prefetch_related_objects

import scoring
import scoring.payments
from tracker.models import (
    Deal,
    DealEvent,
    DealPlayer,
    Player,
    Tap,
)
from tracker.rows import all_with, loader

Row = Tap | DealEvent
_ID = 0  # the `id` column's place among `_union`'s columns (after the kind and marks)


# --- Rows and facts -----------------------------------------------------------------------


def live_records(deal: Deal) -> list[Row]:
    """The deal's taps and events that stand, in the order they were recorded: one query,
    and a second only when a tap marks players "not yet played".

    The records taken back are read too, for their numbers only: `deal.last_seq` becomes
    the highest number the deal has given (see `Deal.last_seq`)."""
    rows, marked, _ = _all_records(deal.pk)
    return _live(deal, rows, marked)


def live_records_and_next(deal: Deal) -> tuple[list[Row], int | None]:
    """`live_records(deal)` and the id of the session's next deal (None: not opened yet),
    read in the same statement: a deal's read shows where to go on, and a round trip of
    its own for that one id was a fifth of a closed deal's first read (issue 15)."""
    rows, marked, following = _all_records(deal.pk, following=(deal.session_id, deal.number + 1))
    return _live(deal, rows, marked), following


def _live(deal: Deal, rows: list[Row], marked: set[int]) -> list[Row]:
    for row in rows:
        row.deal = deal  # as `deal.taps` would set it
    if rows:
        deal.last_seq = max(deal.last_seq, rows[-1].seq)
    live = [row for row in rows if row.undone_at is None]
    taps = [row for row in live if isinstance(row, Tap)]
    unmarked(tap for tap in taps if tap.pk not in marked)
    prefetch_related_objects([tap for tap in taps if tap.pk in marked], "not_played")
    return live


def _all_records(
    deal_id: int, following: tuple[int, int] | None = None
) -> tuple[list[Row], set[int], int | None]:
    """Every tap and event of the deal, taken back or not, in order, and the taps that
    mark anyone "not yet played"; with `following` (a session's id and a deal's number),
    also that deal's id (None: there is none, or it was not asked for).

    One statement, `UNION ALL` of the two tables, each row turned into its model as the
    ORM would (the same converters): the ORM's own `union()` needs both sides to select
    the same columns in the same order, which two models with different fields only do
    with a hand-kept list of placeholders. SQL the same on PostgreSQL and SQLite. The
    deal asked for by `following` is one more row of a kind of its own, its id in the
    `id` column."""
    sql, loads = _union(connection.vendor, following is not None)
    params: list[int] = [deal_id] * len(loads)
    if following is not None:
        params.extend(following)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        found = cursor.fetchall()
    next_id = None
    if following is not None:
        kinds = len(loads)
        next_id = next((values[_ID] for kind, _m, *values in found if kind == kinds), None)
        found = [values for values in found if values[0] != kinds]
    rows = [loads[kind](values) for kind, _marks, *values in found]
    marked = {row.pk for row, (_kind, marks, *_values) in zip(rows, found, strict=True) if marks}
    return rows, marked, next_id


@functools.cache
def _union(
    vendor: str, following: bool = False
) -> tuple[str, list[Callable[[Sequence[Any]], Row]]]:
    """The statement `_all_records` runs (with the following deal's row, or not) and a
    loader for each of its kinds of record. They depend only on the models and the
    database's kind, so they are built once a process (`vendor` is the cache's key)."""
    quote = connection.ops.quote_name
    models: tuple[type[Row], ...] = (Tap, DealEvent)
    columns = list(dict.fromkeys(f.column for m in models for f in m._meta.concrete_fields))
    through = quote(Tap.not_played.through._meta.db_table)
    marking = f"{through}.{quote(Tap.not_played.field.m2m_column_name())}"
    selects = []
    for kind, model in enumerate(models):
        table = quote(model._meta.db_table)
        own = {f.column for f in model._meta.concrete_fields}
        selected = [f"{table}.{quote(c)}" if c in own else "NULL" for c in columns]
        marks = (
            f"EXISTS (SELECT 1 FROM {through} WHERE {marking} = {table}.{quote('id')})"
            if model is Tap
            else "NULL"
        )
        selects.append(
            f"SELECT {kind}, {marks}, {', '.join(selected)} FROM {table} "
            f"WHERE {table}.{quote('deal_id')} = %s"
        )
    assert columns.index("id") == _ID  # where `_all_records` finds the following deal's id
    if following:
        deal = quote(Deal._meta.db_table)
        placed = [f"{deal}.{quote('id')}" if c == "id" else "NULL" for c in columns]
        selects.append(
            f"SELECT {len(models)}, NULL, {', '.join(placed)} FROM {deal} "
            f"WHERE {deal}.{quote('session_id')} = %s AND {deal}.{quote('number')} = %s"
        )
    seq = 3 + columns.index(Tap._meta.get_field("seq").column)  # after kind and marks
    sql = f"{' UNION ALL '.join(selects)} ORDER BY {seq}"
    return sql, [
        loader(model, [columns.index(field.column) for field in model._meta.concrete_fields])
        for model in models
    ]


def unmarked(taps: Iterable[Tap]) -> None:
    """Taps known to mark nobody "not yet played": `tap.not_played.all()` answers empty
    without asking the database (as if prefetched), and without building a query: the
    empty answer is given filled (an unfilled `none()` builds its query again at every
    `.all()`: a tenth of a tap's Python, as a tap's answer reads each tap twice)."""
    nobody = Player.objects.none()
    # Filled as Django's prefetch fills the querysets it caches (`prefetch_one_level`).
    nobody._result_cache, nobody._prefetch_done = [], True  # type: ignore[attr-defined]
    for tap in taps:
        # Django's own prefetch cache; mypy's stubs do not declare it.
        tap._prefetched_objects_cache = {"not_played": nobody}  # type: ignore[attr-defined]


def to_record(row: Row) -> scoring.Record:
    """The scoring fact a stored tap or event stands for."""
    if isinstance(row, Tap):
        return scoring.Tap(
            player=row.player_id,
            not_played=tuple(sorted(player.pk for player in row.not_played.all())),
            loser=row.loser,
        )
    # The columns are nullable, but `event_players_match_type` makes the ones each type
    # uses non-null; the casts say so to the type checker (no runtime effect).
    if row.type == DealEvent.Type.TWO_BEATEN:
        return scoring.TwoBeaten(
            by=cast(int, row.by_id),
            owner=cast(int, row.owner_id),
            beaten_with=scoring.Beater(row.beaten_with),
            black=row.black,
            red=row.red,
        )
    if row.type == DealEvent.Type.CUTUP_BEATEN:
        return scoring.CutupBeaten(
            by=cast(int, row.by_id),
            owner=cast(int, row.owner_id),
            beaten_with=scoring.Beater(row.beaten_with),
        )
    if row.type == DealEvent.Type.HAND:
        return scoring.Hand(
            player=cast(int, row.player_id),
            cards=row.cards,
            black_twos=row.black_twos,
            red_twos=row.red_twos,
            cutups=row.cutups,
            bombs=row.bombs,
        )
    if row.type == DealEvent.Type.GUARANSHEED:
        return scoring.Guaransheed(player=cast(int, row.player_id), blind=row.blind)
    return scoring.InstantWin(
        player=cast(int, row.player_id), kind=scoring.InstantWinKind(row.kind)
    )


def event_fields(record: scoring.Record) -> dict[str, object]:
    """The DealEvent fields that store a scoring fact (the inverse of `to_record`)."""
    if isinstance(record, scoring.TwoBeaten):
        return {
            "type": DealEvent.Type.TWO_BEATEN,
            "by_id": record.by,
            "owner_id": record.owner,
            "beaten_with": record.beaten_with.value,
            "black": record.black,
            "red": record.red,
        }
    if isinstance(record, scoring.CutupBeaten):
        return {
            "type": DealEvent.Type.CUTUP_BEATEN,
            "by_id": record.by,
            "owner_id": record.owner,
            "beaten_with": record.beaten_with.value,
        }
    if isinstance(record, scoring.Hand):
        return {
            "type": DealEvent.Type.HAND,
            "player_id": record.player,
            "cards": record.cards,
            "black_twos": record.black_twos,
            "red_twos": record.red_twos,
            "cutups": record.cutups,
            "bombs": record.bombs,
        }
    if isinstance(record, scoring.Guaransheed):
        return {
            "type": DealEvent.Type.GUARANSHEED,
            "player_id": record.player,
            "blind": record.blind,
        }
    if isinstance(record, scoring.InstantWin):
        return {
            "type": DealEvent.Type.INSTANT_WIN,
            "player_id": record.player,
            "kind": record.kind.value,
        }
    raise TypeError(f"Not an event: {record!r}")


# The scoring fact each type of event stands for, and its fields that are enums.
EVENT_RECORDS: dict[str, type[scoring.Record]] = {
    DealEvent.Type.TWO_BEATEN: scoring.TwoBeaten,
    DealEvent.Type.CUTUP_BEATEN: scoring.CutupBeaten,
    DealEvent.Type.HAND: scoring.Hand,
    DealEvent.Type.GUARANSHEED: scoring.Guaransheed,
    DealEvent.Type.INSTANT_WIN: scoring.InstantWin,
}
_ENUMS: dict[str, type[StrEnum]] = {
    "beaten_with": scoring.Beater,
    "kind": scoring.InstantWinKind,
}


def event_record(kind: str, sent: Mapping[str, Any]) -> scoring.Record:
    """An event of type `kind` as scoring reads it, from what a door read: a page form's
    cleaned data or an API serializer's validated data. A field may be under the record's
    own name (`by`) or the stored one (`by_id`); one left empty takes the record's default
    (no 2s, no bombs)."""
    record = EVENT_RECORDS[kind]
    values: dict[str, Any] = {}
    for attribute in dataclasses.fields(record):
        value = sent.get(attribute.name, sent.get(f"{attribute.name}_id"))
        if value is not None:
            enum = _ENUMS.get(attribute.name)
            values[attribute.name] = enum(value) if enum is not None else value
    return record(**values)


def seated_players(deal: Deal) -> list[DealPlayer]:
    """The deal's players in seat order, with their players (names) loaded."""
    # Read by hand (`tracker.rows`): every deal read runs it, and the ORM took longer to
    # build it than to run it.
    seated = all_with(DealPlayer, ("player",), "deal", deal.pk, order=("seat",))
    for deal_player in seated:
        deal_player.deal = deal  # as the related manager sets it
    return seated


def deal_facts(
    deal: Deal,
    rows: Iterable[Row] | None = None,
    deal_players: Sequence[DealPlayer] | None = None,
) -> scoring.DealFacts:
    """The scoring facts of a stored deal (its session must be loaded). `rows` and
    `deal_players` (seat order, players loaded), when the caller has read them."""
    if deal_players is None:
        deal_players = seated_players(deal)
    if rows is None:
        rows = live_records(deal)
    return scoring.DealFacts(
        players=tuple(dp.player_id for dp in deal_players),
        rules=deal.session.rules,
        records=tuple(to_record(row) for row in rows),
        ended=deal.status == Deal.Status.ENDED,
        names={dp.player_id: dp.player.name for dp in deal_players},
    )


def snapshot(facts: scoring.DealFacts, result: scoring.DealResult) -> dict[str, Any]:
    """A deal's records, points and ledger as JSON, for a correction's before and after."""
    return {
        "status": result.status.value,
        "records": [_describe(record) for record in facts.records],
        "points": {str(player): points for player, points in result.points.items()},
        "ledger": [
            {
                "from": line.payer,
                "to": line.payee,
                "amount": str(line.amount),
                "reason": line.reason.value,
            }
            for line in result.ledger
        ],
    }


def _describe(record: scoring.Record) -> dict[str, Any]:
    description: dict[str, Any] = {"type": type(record).__name__}
    for name, value in vars(record).items():
        description[name] = (
            value.value
            if hasattr(value, "value")
            else (list(value) if isinstance(value, tuple) else value)
        )
    return description


# --- A deal as it is shown ----------------------------------------------------------------


@dataclass(frozen=True)
class DealState:
    """A deal as its screens and the API show it: an open deal's points are provisional
    and its ledger holds only the lines already certain (SPEC 9)."""

    deal: Deal
    players: list[DealPlayer]  # seat order, players loaded, places and points as stored
    taps: list[Tap]  # that stand, in order, their not-played marks loaded
    events: list[DealEvent]  # that stand, in order
    facts: scoring.DealFacts
    result: scoring.DealResult
    next_deal: int | None

    @property
    def names(self) -> dict[int, str]:
        return {dp.player_id: dp.player.name for dp in self.players}


def deal_state(
    deal: Deal,
    *,
    rows: Sequence[Row],
    deal_players: list[DealPlayer],
    result: scoring.DealResult,
    facts: scoring.DealFacts,
    next_deal: int | None,
) -> DealState:
    """What a write already knows, as a `DealState` (nothing read back)."""
    return DealState(
        deal=deal,
        players=deal_players,
        taps=[row for row in rows if isinstance(row, Tap)],
        events=[row for row in rows if isinstance(row, DealEvent)],
        facts=facts,
        result=result,
        next_deal=next_deal,
    )


def read_deal_state(deal: Deal, deal_players: list[DealPlayer] | None = None) -> DealState:
    """A stored deal as a `DealState` (its session must be loaded).

    Queries: its players (unless given); its taps, its events and the next deal's id
    (one statement); the taps' not-played marks, if any: three, however long the session.
    """
    if deal_players is None:
        deal_players = seated_players(deal)
    rows, next_deal = live_records_and_next(deal)
    facts = deal_facts(deal, rows, deal_players)
    return deal_state(
        deal,
        rows=rows,
        deal_players=deal_players,
        facts=facts,
        result=scoring.play(facts),
        next_deal=next_deal,
    )
