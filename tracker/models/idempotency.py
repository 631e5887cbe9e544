"""Writes answered once: the keys of retried requests."""

from __future__ import annotations

from django.db import models
from django.utils import timezone


class IdempotencyKey(models.Model):
    """A write sent with an `Idempotency-Key` header (SPEC 8): answered once, then replayed.

    `scope` is the caller (`user:<id>` or `link:<id>`), so two callers never share a key.
    `fingerprint` hashes the method, path and body: the same key with another request is
    refused. A key is `running` while its first request is in progress and `done` once
    its response is stored; keys are kept at least 24 hours (see `tracker.gate`).
    """

    class State(models.TextChoices):
        RUNNING = "running", "Running"
        DONE = "done", "Done"

    scope = models.CharField(max_length=40)
    key = models.CharField(max_length=255)
    fingerprint = models.CharField(max_length=64)
    state = models.CharField(max_length=10, choices=State.choices, default=State.RUNNING)
    status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    response_body = models.TextField(blank=True)
    created_at = models.DateTimeField(default=timezone.now, db_index=True)
    # When the current attempt started: a request that died leaves a stale `running` key.
    started_at = models.DateTimeField(default=timezone.now)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["scope", "key"], name="idempotency_key_once_per_caller"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.key} ({self.scope}, {self.state})"
