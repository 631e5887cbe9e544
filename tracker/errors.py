"""Refusals: what every door (the API and the pages) answers when something is not done.

A refusal carries the HTTP status, a stable `code` for programs and a sentence for people.
The sentence is kept as a `Text` (a template marked with `gettext_noop` and its values)
and said in the language active when `message` is read, so each door gives it in its
reader's language. Nothing is written when one is raised: access checks raise before any
write, and services raise inside their transaction.
"""

from __future__ import annotations

from django.conf import settings
from django.utils.translation import gettext, gettext_noop

import scoring
from scoring.text import Text


class Refusal(Exception):
    """Something the caller asked for is not done; `status` and `code` say why to
    programs, `message` to people."""

    status = 400
    code = "invalid"

    def __init__(self, template: str | Text, *, code: str | None = None, **values: object) -> None:
        self.text = template if isinstance(template, Text) else Text(template, values)
        if code is not None:
            self.code = code
        super().__init__(self.text.render())

    @property
    def message(self) -> str:
        return self.text.render(gettext)


class Invalid(Refusal):
    """What was sent cannot be right (400)."""

    status = 400
    code = "invalid"


class Forbidden(Refusal):
    """The caller may see this, but not do this (403)."""

    status = 403
    code = "forbidden"


class NotFound(Refusal):
    """Nothing of that id within the caller's reach (404): whether it exists elsewhere is
    not said."""

    status = 404
    code = "not_found"


class Conflict(Refusal):
    """The state changed under the request, or does not allow it now (409)."""

    status = 409
    code = "conflict"


class KeyReused(Refusal):
    """An idempotency key sent again with a different request (422)."""

    status = 422
    code = "idempotency_key_reused"


class TooManyWrites(Refusal):
    """Over the write rate (429); `wait` is how many seconds until the next is allowed."""

    status = 429
    code = "throttled"

    def __init__(self, template: str | Text, *, wait: int, **values: object) -> None:
        text = template.template if isinstance(template, Text) else template
        super().__init__(Text(text, {"wait": wait, **values}))
        self.wait = wait


class LockedOut(Refusal):
    """Too many wrong passwords for a username or from an address (429): sign-in is
    refused for `wait` seconds (django-axes counts; `tracker.views.lockout` answers)."""

    status = 429
    code = "locked_out"

    def __init__(self, *, wait: int | None = None) -> None:
        # Each try while locked out starts the lockout again, so the wait is all of it.
        if wait is None:
            wait = int(settings.AXES_COOLOFF_TIME.total_seconds())
        super().__init__(LOCKED_OUT, minutes=max(1, -(-wait // 60)))
        self.wait = wait


LOCKED_OUT = gettext_noop(
    "Too many wrong passwords for this account or from this address: signing in is "
    "locked for %(minutes)s minutes. Wait, then try again."
)


def refused_by_rules(error: scoring.ScoringError) -> Refusal:
    """A refusal of the rules: about the deal's state (filed, ended) is a conflict, about
    the record itself invalid."""
    return Conflict(error.text) if error.conflict else Invalid(error.text)
