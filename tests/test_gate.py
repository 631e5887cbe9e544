"""tracker.gate: the one write gate every write passes, from the API or a page."""

import pytest
from django.core.cache import caches
from django.test import RequestFactory

from tracker import gate
from tracker.access import Actor
from tracker.errors import Invalid, KeyReused, TooManyWrites
from tracker.models import IdempotencyKey, WriteCount
from tracker.views.doors import fingerprint

pytestmark = pytest.mark.django_db


@pytest.fixture
def two_writes_a_minute(settings, no_throttling, one_rate_window):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"auth": None, "writes": "2/min"},
    }
    caches["throttle"].clear()
    yield
    caches["throttle"].clear()


def counted(calls):
    """A write that counts how often it ran."""

    def work():
        calls.append(1)
        return len(calls)

    return work


def once(actor, key, fingerprint_text, work):
    return gate.write_once(
        actor=actor,
        key=key,
        fingerprint=fingerprint_text,
        work=work,
        answer=lambda result: gate.Answer(status=200, body=str(result)),
    )


def stored(calls):
    """A write that stores a row each time it runs (the rows tell what was applied)."""

    def work():
        calls.append(1)
        WriteCount.objects.create(scope=f"test {len(calls)}", period_start=0, count=1)
        return len(calls)

    return work


def test_a_key_is_applied_once_and_its_answer_replayed(actor):
    calls = []

    first = once(actor, "k-1", "tap alice", stored(calls))
    again = once(actor, "k-1", "tap alice", stored(calls))

    assert (first, again) == (1, gate.Replay(gate.Answer(200, "1")))
    # The key is not looked up before the write: the second attempt ran, found the key
    # taken when it stored its own, and was rolled back.
    assert list(WriteCount.objects.filter(scope__startswith="test ").values_list("scope")) == [
        ("test 1",)
    ]


def test_a_replayed_key_whose_write_is_refused_now_replays(actor):
    """The first answer stands even when the write would be refused today (the player
    it tapped is out)."""
    once(actor, "k-1", "tap alice", counted([]))

    def refuse():
        raise Invalid("Alice is already out.")

    assert once(actor, "k-1", "tap alice", refuse) == gate.Replay(gate.Answer(200, "1"))


def test_a_replayed_key_whose_write_is_not_a_success_now_replays(actor):
    once(actor, "k-1", "tap alice", stored([]))

    replay = gate.write_once(
        actor=actor,
        key="k-1",
        fingerprint="tap alice",
        work=stored([1]),
        answer=lambda _result: None,  # not a success this time
    )

    assert replay == gate.Replay(gate.Answer(200, "1"))
    assert not WriteCount.objects.filter(scope="test 2").exists()  # rolled back


def test_the_same_key_with_another_request_is_refused(actor):
    once(actor, "k-1", "tap alice", counted([]))

    with pytest.raises(KeyReused):
        once(actor, "k-1", "tap ben", stored([]))
    assert not WriteCount.objects.filter(scope__startswith="test ").exists()


def test_keys_are_the_callers_own(actor, django_user_model):
    other = Actor(user=django_user_model.objects.create_user(username="other", password="x"))
    calls = []

    once(actor, "k-1", "tap alice", counted(calls))
    once(other, "k-1", "tap alice", counted(calls))

    assert calls == [1, 1]


def test_a_refused_write_lets_its_key_go(actor):
    def refuse():
        raise Invalid("No.")

    with pytest.raises(Invalid):
        once(actor, "k-1", "tap alice", refuse)

    assert IdempotencyKey.objects.count() == 0
    assert once(actor, "k-1", "tap alice", counted([])) == 1


def test_without_a_key_every_write_runs(actor):
    calls = []

    once(actor, None, "tap alice", counted(calls))
    once(actor, None, "tap alice", counted(calls))

    assert calls == [1, 1]


def test_a_key_that_is_not_printable_ascii_is_refused(actor):
    with pytest.raises(Invalid) as refused:
        once(actor, "ключ", "tap alice", counted([]))

    assert refused.value.code == "idempotency_key_invalid"


def test_writes_over_the_rate_are_refused_with_the_wait_and_run_nothing(actor, two_writes_a_minute):
    calls = []
    once(actor, None, "a", counted(calls))
    once(actor, "k-2", "b", counted(calls))

    with pytest.raises(TooManyWrites) as refused:
        once(actor, "k-3", "c", counted(calls))

    assert calls == [1, 1]
    assert 1 <= refused.value.wait <= 60
    assert refused.value.status == 429
    assert IdempotencyKey.objects.filter(key="k-3").count() == 0


def test_the_rate_is_per_caller(actor, django_user_model, two_writes_a_minute):
    other = Actor(user=django_user_model.objects.create_user(username="other", password="x"))
    for key in ("a", "b"):
        once(actor, None, key, counted([]))

    assert once(other, None, "c", counted([])) == 1


def test_a_form_s_fingerprint_is_what_was_sent_without_the_csrf_token():
    factory = RequestFactory()
    sent = {"deal": "7", "player": "3", "key": "k"}

    one = factory.post("/sessions/1/tap/", {**sent, "csrfmiddlewaretoken": "a" * 64})
    two = factory.post("/sessions/1/tap/", {"csrfmiddlewaretoken": "b" * 64, **sent})
    other_player = factory.post("/sessions/1/tap/", {**sent, "player": "4"})
    other_path = factory.post("/sessions/2/tap/", sent)

    assert fingerprint(one) == fingerprint(two)
    assert len({fingerprint(one), fingerprint(other_player), fingerprint(other_path)}) == 3
