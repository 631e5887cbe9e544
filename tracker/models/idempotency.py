"""Writes answered once: the keys of retried requests, and the callers' write counters."""

from __future__ import annotations

from django.db import models
from django.utils import timezone


class IdempotencyKey(models.Model):
    """A write sent with an `Idempotency-Key` header (SPEC 8): answered once, then replayed.

    `scope` is the caller (`user:<id>` or `link:<id>`), so two callers never share a key.
    `fingerprint` hashes the method, path and body: the same key with another request is
    refused. The row is stored with its write's answer, in the write's own transaction
    (see `tracker.gate`): there is no key without its effect, nor an effect without its
    key. Keys are kept at least 24 hours.
    """

    scope = models.CharField(max_length=40)
    key = models.CharField(max_length=255)
    fingerprint = models.CharField(max_length=64)
    status_code = models.PositiveSmallIntegerField()
    response_body = models.TextField(blank=True)
    created_at = models.DateTimeField(default=timezone.now, db_index=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["scope", "key"], name="idempotency_key_once_per_caller"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.key} ({self.scope}, {self.status_code})"


class WriteCount(models.Model):
    """How many writes a caller (`scope`) made in the current window of the write rate.

    One row per caller, counted up by one statement per write (`tracker.gate.throttle`).
    On PostgreSQL the table is UNLOGGED: a count lost in a crash costs nothing, and
    counting never waits for the disk.
    """

    scope = models.CharField(max_length=60, primary_key=True)
    period_start = models.BigIntegerField(help_text="Seconds since the epoch ÷ the period.")
    count = models.PositiveIntegerField()

    def __str__(self) -> str:
        return f"{self.scope}: {self.count}"
