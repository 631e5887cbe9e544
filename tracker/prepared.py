"""Prepared statements that a change to a table's columns made stale (docs/deploy.md,
"Prepared statements").

psycopg prepares what a connection runs a third time. A migration run from another
process that changes the type of a column a prepared statement reads (an `AlterField`
of a `max_length`, say) makes PostgreSQL refuse that statement from then on: "cached plan
must not change result type". psycopg forgets its prepared statements only when its own
connection runs a DROP, an ALTER, a ROLLBACK or a DEALLOCATE ALL, and the pool keeps a
connection for up to an hour: every such read on it would fail until then.

`replan`, an execute wrapper on every PostgreSQL connection, answers that refusal. Out of
a transaction it deallocates the connection's prepared statements and runs the statement
again, unprepared: the caller never knows. Inside one, the transaction is spoilt; its
rollback makes psycopg forget them, and the refusal is raised as an OperationalError,
which the pages and the API answer with their 503, "try again in a moment"
(`tracker.middleware`): the retry is planned afresh. Written here because psycopg has no
option for it and Django no hook on a failed statement but execute wrappers.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.db import NotSupportedError, OperationalError
from django.db.backends.base.base import BaseDatabaseWrapper

FEATURE_NOT_SUPPORTED = "0A000"  # the SQLSTATE of "cached plan must not change result type"


def _stale_plan(error: NotSupportedError) -> bool:
    cause = error.__cause__
    if getattr(cause, "sqlstate", None) != FEATURE_NOT_SUPPORTED:
        return False
    return "cached plan must not change result type" in str(cause)


def replan(
    execute: Callable[..., Any], sql: str, params: Any, many: bool, context: dict[str, Any]
) -> Any:
    try:
        return execute(sql, params, many, context)
    except NotSupportedError as error:
        if not _stale_plan(error):
            raise
        database: BaseDatabaseWrapper = context["connection"]
        if database.in_atomic_block:
            raise OperationalError(str(error.__cause__)) from error
        database.connection.execute("DEALLOCATE ALL")  # psycopg forgets its own too
        return execute(sql, params, many, context)


def install(sender: object, connection: BaseDatabaseWrapper, **kwargs: Any) -> None:
    """On `connection_created`: every PostgreSQL connection runs its statements through
    `replan` (once: with the pool, a thread's connection wrapper is created again at
    every request)."""
    if connection.vendor == "postgresql" and replan not in connection.execute_wrappers:
        connection.execute_wrappers.append(replan)
