"""`manage.py purge_idempotency_keys`: keys past the age go, younger keys stay."""

from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from tracker.models import IdempotencyKey

pytestmark = pytest.mark.django_db


def key_aged(name: str, hours: float) -> IdempotencyKey:
    made = timezone.now() - timedelta(hours=hours)
    return IdempotencyKey.objects.create(
        scope="user:1",
        key=name,
        fingerprint="f" * 64,
        status_code=201,
        created_at=made,
    )


def purge(*args: str) -> str:
    out = StringIO()
    call_command("purge_idempotency_keys", *args, stdout=out)
    return out.getvalue()


def test_purge_removes_keys_older_than_a_day_and_keeps_the_rest():
    for name, hours in [("old", 25), ("older", 24 * 7), ("fresh", 1), ("almost", 23.9)]:
        key_aged(name, hours)

    output = purge()

    assert output == "Removed 2 idempotency keys older than 24 hours.\n"
    kept = IdempotencyKey.objects.order_by("key").values_list("key", flat=True)
    assert list(kept) == ["almost", "fresh"]


def test_purge_with_hours_keeps_keys_younger_than_that():
    for name, hours in [("two days", 49), ("a day and a half", 36), ("fresh", 1)]:
        key_aged(name, hours)

    output = purge("--hours", "48")

    assert output == "Removed 1 idempotency key older than 48 hours.\n"
    kept = IdempotencyKey.objects.order_by("key").values_list("key", flat=True)
    assert list(kept) == ["a day and a half", "fresh"]


def test_purge_with_nothing_old_removes_nothing():
    key_aged("fresh", 1)

    assert purge() == "Removed 0 idempotency keys older than 24 hours.\n"
    assert IdempotencyKey.objects.count() == 1


def test_purge_refuses_to_keep_keys_less_than_a_day():
    key_aged("old", 25)

    with pytest.raises(CommandError, match="kept at least 24 hours"):
        purge("--hours", "1")

    assert IdempotencyKey.objects.count() == 1
