"""Rows written by statements built by hand, as the ORM's `save()` and `bulk_create`
write them.

Hand-written where the ORM costs more than the statement, as the reads in `tracker.rows`
are: a tap's row, its key, a filing's new seats and ledger lines. A statement depends
only on the model, the database's kind (and the count of rows), so it is built once a
process. Each is held to the ORM's rows field by field (tests/test_rows.py), on both
databases.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any, TypeVar, cast

from django.db import DatabaseError, connection
from django.db.models import NOT_PROVIDED, Field, Model
from django.db.models.signals import post_save, pre_save

M = TypeVar("M", bound=Model)


def _saved_plainly(model: type[Model]) -> None:
    """Refuse a model whose save() does more than store it: signal receivers run there."""
    if pre_save.has_listeners(model) or post_save.has_listeners(model):
        raise TypeError(f"{model.__name__} has signal receivers: save() it instead.")


def insert(instance: M) -> M:
    """Store a new row as `instance.save()` stores it (its defaults, each field's
    `pre_save` and conversion), for a model with an automatic key, no signal receivers
    and no `save()` of its own; the instance, not given a key, gets its key. One
    statement."""
    return _stored([instance], operation="save")[0]


# More rows than this in one `insert_all` go to the ORM's `bulk_create`: a statement is
# built once a process for each count of rows, and SQLite takes at most 999 parameters.
MOST_ROWS_AT_ONCE = 32


def insert_all(instances: Sequence[M]) -> list[M]:
    """Store new rows of one model as `bulk_create(instances)` stores them, for a model
    `insert` may store: one statement, built once a process for each model and count of
    rows. Each instance gets its key where the database gives keys back from a multi-row
    insert (PostgreSQL, SQLite 3.35 on), as with `bulk_create`. Written by hand for a
    filing tap's new seats and ledger lines: the ORM's `bulk_create` spent longer
    building those statements than the database spent running them
    (docs/performance.md, session 20)."""
    if not instances:
        return []
    if len(instances) > MOST_ROWS_AT_ONCE:
        model = _checked(instances, operation="bulk_create")
        return list(model._default_manager.bulk_create(instances))
    return _stored(instances, operation="bulk_create")


def _checked(instances: Sequence[M], *, operation: str) -> type[M]:
    """The model of `instances`, once each is a new row of it that may be stored here;
    a related object saved after it was assigned gives its key now, and one never saved
    is refused (ValueError) rather than stored as a null key, as `operation` does."""
    model = type(instances[0])
    _saved_plainly(model)
    for instance in instances:
        if type(instance) is not model:
            raise TypeError(f"insert_all stores rows of one model, not {type(instance).__name__}.")
        if instance.pk is not None or not instance._state.adding:
            raise TypeError(f"This {model.__name__} has a key already: save() it instead.")
        instance._prepare_related_fields_for_save(operation_name=operation)  # type: ignore[attr-defined]
    return model


def _stored(instances: Sequence[M], *, operation: str) -> list[M]:
    model = _checked(instances, operation=operation)
    sql, fields, returning = _insert(connection.vendor, model, len(instances))
    values = [
        field.get_db_prep_save(field.pre_save(instance, True), connection)
        for instance in instances
        for field in fields
    ]
    with connection.cursor() as cursor:
        cursor.execute(sql, values)
        if returning:
            keys = [pk for (pk,) in cursor.fetchall()]
        elif len(instances) == 1:
            table, column = model._meta.db_table, model._meta.pk.column
            keys = [connection.ops.last_insert_id(cursor, table, column)]
        else:
            keys = [None] * len(instances)
    for instance, pk in zip(instances, keys, strict=True):
        instance.pk = pk
        instance._state.adding, instance._state.db = False, connection.alias
    return list(instances)


@functools.lru_cache(maxsize=4 * MOST_ROWS_AT_ONCE)
def _insert(vendor: str, model: type[Model], count: int) -> tuple[str, list[Field[Any, Any]], bool]:
    """The INSERT of `count` rows of `model`, the fields whose values it takes (a row's
    after another's), and whether it gives the keys back."""
    quote = connection.ops.quote_name
    pk = model._meta.pk
    assert pk is not None and pk.get_internal_type() in ("AutoField", "BigAutoField"), model
    assert model.save is Model.save, f"{model.__name__} saves in its own way"
    fields = [field for field in model._meta.concrete_fields if field is not pk]
    assert all(f.db_default is NOT_PROVIDED and not f.generated for f in fields), model
    columns = ", ".join(quote(field.column) for field in fields)
    row = "(" + ", ".join(["%s"] * len(fields)) + ")"
    sql = f"INSERT INTO {quote(model._meta.db_table)} ({columns}) VALUES {', '.join([row] * count)}"
    features = connection.features
    returning = (
        features.can_return_columns_from_insert
        if count == 1
        else features.can_return_rows_from_bulk_insert
    )
    if returning:
        sql += f" RETURNING {quote(pk.column)}"
    return sql, fields, returning


def update(instance: Model, fields: tuple[str, ...]) -> None:
    """Write these fields of a stored row as `instance.save(update_fields=fields)` writes
    them, for a model `insert` may store. One statement."""
    model = type(instance)
    _saved_plainly(model)
    if not fields:
        return  # as save(update_fields=[]): nothing to write, no statement
    sql, written = _update(connection.vendor, model, fields)
    values = [
        field.get_db_prep_save(field.pre_save(instance, False), connection) for field in written
    ]
    with connection.cursor() as cursor:
        cursor.execute(sql, [*values, instance.pk])
        if cursor.rowcount != 1:  # as save(update_fields=...) says of a row not there
            raise DatabaseError("Save with update_fields did not affect any rows.")


@functools.cache
def _update(
    vendor: str, model: type[Model], fields: tuple[str, ...]
) -> tuple[str, list[Field[Any, Any]]]:
    quote = connection.ops.quote_name
    assert model.save is Model.save, f"{model.__name__} saves in its own way"
    written = [cast("Field[Any, Any]", model._meta.get_field(name)) for name in fields]
    pk = model._meta.pk
    assert all(field.concrete and field is not pk for field in written), (model, fields)
    sets = ", ".join(f"{quote(field.column)} = %s" for field in written)
    sql = f"UPDATE {quote(model._meta.db_table)} SET {sets} WHERE {quote(pk.column)} = %s"
    return sql, written
