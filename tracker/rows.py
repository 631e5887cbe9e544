"""Rows read by statements written by hand, turned into model instances as the ORM turns
them.

Hand-written, where the ORM costs more than the statement: on the tap's path Django took
longer to build a read (`select_related` of five tables: compiling it, then a model a
table a row) than PostgreSQL took to run it (docs/performance.md, session 12). A
statement here depends only on the models and the database's kind, so it is built once
a process; what changes between calls travels as parameters. Every read here has a test
holding it to the ORM's read field by field (tests/test_rows.py), on both databases.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any, TypeVar, cast

from django.db import connection
from django.db.models import Field, ForeignKey, Model

from tracker.models import Circle, Deal, DealPlayer, Player, Session

M = TypeVar("M", bound=Model)


def storable(model: type[Model], pk: int) -> bool:
    """Whether `pk` fits the model's key column: the ORM answers a lookup of a key past
    its range with nothing found, and a statement written by hand must say the same
    rather than send it (SQLite's driver raises on it; PostgreSQL refuses it)."""
    low, high = connection.ops.integer_field_range(model._meta.pk.get_internal_type())
    return (low is None or pk >= low) and (high is None or pk <= high)


def selected(model: type[Model], alias: str) -> list[str]:
    """The model's columns, in the order of its concrete fields, under `alias`."""
    quote = connection.ops.quote_name
    return [f"{quote(alias)}.{quote(field.column)}" for field in model._meta.concrete_fields]


def loader(model: type[M], at: Sequence[int]) -> Callable[[Sequence[Any]], M]:
    """Turns a row into an instance of `model`: its concrete fields' values are at the
    positions `at`, in the fields' order, and are converted as the ORM converts them."""
    fields = model._meta.concrete_fields
    assert len(at) == len(fields), (model, at)
    names = [field.attname for field in fields]
    cols = [field.get_col(model._meta.db_table) for field in fields]
    # The backend's converters and the field's, as Django's compiler takes them: on SQLite
    # the backend's make dates aware and a column NULL in a UNION's first half a bool.
    converters = [
        connection.ops.get_db_converters(col) + col.get_db_converters(connection) for col in cols
    ]

    def load(values: Sequence[Any]) -> M:
        loaded = []
        for position, col, converting in zip(at, cols, converters, strict=True):
            value = values[position]
            for convert in converting:
                value = convert(value, col, connection)
            loaded.append(value)
        return model.from_db(connection.alias, names, loaded)

    return load


def loaders(*models: type[Model]) -> list[Callable[[Sequence[Any]], Any]]:
    """A loader for each model, for a row that selects each model's columns (`selected`)
    one model after the other, in this order."""
    made, start = [], 0
    for model in models:
        width = len(model._meta.concrete_fields)
        made.append(loader(model, range(start, start + width)))
        start += width
    return made


# --- The reads ------------------------------------------------------------------------


def one_with(model: type[M], related: tuple[str, ...], column: str, value: str) -> M | None:
    """The row of `model` whose unique `column` is `value`, with the objects its foreign
    keys in `related` point to, as `select_related(*related)` reads them (named from
    `model` as there: "session", "session__circle"); None when there is no such row. One
    query."""
    found = all_with(model, related, column, value)
    return found[0] if found else None


def all_with(
    model: type[M],
    related: tuple[str, ...],
    column: str,
    value: int | str,
    *,
    order: tuple[str, ...] = (),
    where: str = "",
    params: Sequence[int | str] = (),
) -> list[M]:
    """The rows of `model` whose `column` is `value`, and that meet the condition `where`
    (on the model's table as `t0`, with its `params`) if given, in the order of the
    fields `order`, with what `related` names loaded as `one_with` loads it. A key that
    may be null, and what is reached through it, is joined as `select_related` joins
    it (LEFT OUTER): None where null."""
    sql, load, keys = _all_with(connection.vendor, model, related, column, order, where)
    with connection.cursor() as cursor:
        cursor.execute(sql, [value, *params])
        found = cursor.fetchall()
    rows = []
    for values in found:
        loaded: dict[str, Model | None] = {"": load[0](values)}
        for path, load_related, key in zip(related, load[1:], keys, strict=True):
            parent_path, _, name = path.rpartition("__")
            parent = loaded[parent_path]
            if parent is None or getattr(parent, key) is None:
                loaded[path] = None
            else:
                loaded[path] = load_related(values)
            if parent is not None:
                setattr(parent, name, loaded[path])
        rows.append(cast(M, loaded[""]))
    return rows


@functools.cache
def _all_with(
    vendor: str,
    model: type[Model],
    related: tuple[str, ...],
    column: str,
    order: tuple[str, ...],
    where: str,
) -> tuple[str, list[Callable[[Sequence[Any]], Any]], list[str]]:
    """The statement `all_with` runs, a loader for each model it reads, and the attribute
    of each relation's key (to tell a null one)."""
    quote = connection.ops.quote_name
    models, aliases = {"": model}, {"": "t0"}
    outer = {"": False}  # joined LEFT OUTER: a key that may be null, or below one
    joins, keys = [], []
    for number, path in enumerate(related, start=1):
        parent, _, name = path.rpartition("__")
        field = models[parent]._meta.get_field(name)
        assert isinstance(field, ForeignKey), (model, path)
        target = cast(type[Model], field.related_model)
        models[path], aliases[path] = target, f"t{number}"
        outer[path] = field.null or outer[parent]
        keys.append(field.attname)
        joins.append(
            f" {'LEFT OUTER' if outer[path] else 'INNER'} JOIN"
            f" {quote(target._meta.db_table)} {aliases[path]}"
            f" ON {aliases[path]}.{quote(field.target_field.column)}"
            f" = {aliases[parent]}.{quote(field.column)}"
        )
    chain = ["", *related]
    columns = ", ".join(c for path in chain for c in selected(models[path], aliases[path]))

    def column_of(name: str) -> str:
        return f"t0.{quote(cast('Field[Any, Any]', model._meta.get_field(name)).column)}"

    sql = (
        f"SELECT {columns} FROM {quote(model._meta.db_table)} t0{''.join(joins)}"
        f" WHERE {column_of(column)} = %s"
    )
    if where:
        sql += f" AND ({where})"
    if order:
        sql += " ORDER BY " + ", ".join(
            column_of(model._meta.pk.name if name == "pk" else name) for name in order
        )
    return sql, loaders(*(models[path] for path in chain)), keys


def in_circle_of(circle_column: str) -> str:
    """The condition that the circle in `circle_column` has the account given as its
    parameter among its members."""
    through = connection.ops.quote_name(Circle.members.through._meta.db_table)
    return (
        f"EXISTS (SELECT 1 FROM {through} m WHERE m.circle_id = {circle_column} AND m.user_id = %s)"
    )


def session_with_circle(
    session_id: int, *, link_of: int | None = None, member: int | None = None
) -> Session | None:
    """The session with its circle, if it is the session of a link (`link_of`, its
    session's id) or in a circle of the account `member`; None for neither (no stored
    account, no link: nothing is in reach)."""
    if not storable(Session, session_id):
        return None
    if link_of is not None:
        found = all_with(Session, ("circle",), "id", session_id) if link_of == session_id else []
    elif member is not None:
        where = in_circle_of("t0.circle_id")
        found = all_with(Session, ("circle",), "id", session_id, where=where, params=[member])
    else:
        return None
    return found[0] if found else None


def deals_in_reach(session_id: int | None, member_id: int | None) -> tuple[str, list[int]]:
    """The condition, on the deal table as `t0`, that a deal is of `session_id` and of a
    circle `member_id` is in (each when given), and its parameters: `all_with`'s `where`
    for `tracker.access.DealInReach` ("" when neither is given)."""
    conditions, params = [], []
    if session_id is not None:
        conditions, params = ["t0.session_id = %s"], [session_id]
    if member_id is not None:
        sessions = connection.ops.quote_name(Session._meta.db_table)
        conditions.append(
            f"t0.session_id IN (SELECT s.id FROM {sessions} s WHERE {in_circle_of('s.circle_id')})"
        )
        params.append(member_id)
    return " AND ".join(conditions), params


def deal_and_players(deal_id: int) -> tuple[Deal, list[DealPlayer]]:
    """The deal with its session, dealer and leader, and its players in seat order with
    their names: one query, the rows as `select_related` reads them. An unknown deal gives
    `LookupError`. Not `all_with`: this is the tap's first read, and the deal, session,
    dealer and leader repeat on every row; read once, shared by every seat, they cost a
    third less."""
    if not storable(Deal, deal_id):
        raise LookupError(deal_id)
    sql, (load_seat, load_deal, load_session, load_player, load_dealer, load_leader) = (
        _deal_and_players(connection.vendor)
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [deal_id])
        found = cursor.fetchall()
    if not found:
        raise LookupError(deal_id)
    deal = load_deal(found[0])
    deal.session = load_session(found[0])
    deal.dealer = None if deal.dealer_id is None else load_dealer(found[0])
    deal.leader = None if deal.leader_id is None else load_leader(found[0])
    seated = []
    for values in found:
        deal_player = load_seat(values)
        deal_player.deal = deal
        deal_player.player = load_player(values)
        seated.append(deal_player)
    return deal, seated


_DEAL_AND_PLAYERS = """
SELECT {columns} FROM {deal_player} seat
INNER JOIN {deal} deal ON deal.id = seat.deal_id
INNER JOIN {session} s ON s.id = deal.session_id
INNER JOIN {player} player ON player.id = seat.player_id
LEFT OUTER JOIN {player} dealer ON dealer.id = deal.dealer_id
LEFT OUTER JOIN {player} leader ON leader.id = deal.leader_id
WHERE seat.deal_id = %s ORDER BY seat.seat
"""


@functools.cache
def _deal_and_players(vendor: str) -> tuple[str, list[Callable[[Sequence[Any]], Any]]]:
    """The statement `deal_and_players` runs, and a loader for each model its rows hold
    (built once a process)."""
    read = (
        (DealPlayer, "seat"),
        (Deal, "deal"),
        (Session, "s"),
        (Player, "player"),
        (Player, "dealer"),
        (Player, "leader"),
    )
    tables = {
        name: connection.ops.quote_name(model._meta.db_table)
        for name, model in (
            ("deal_player", DealPlayer),
            ("deal", Deal),
            ("session", Session),
            ("player", Player),
        )
    }
    columns = ", ".join(column for model, alias in read for column in selected(model, alias))
    sql = _DEAL_AND_PLAYERS.format(columns=columns, **tables)
    return sql, loaders(*(model for model, _alias in read))
