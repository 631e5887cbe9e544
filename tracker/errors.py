"""Refusals: what every door (the API and the pages) answers when something is not done.

A refusal carries the HTTP status, a stable `code` for programs and a sentence for people.
The sentence is kept as a `Text` (a template marked with `gettext_noop` and its values)
and said in the language active when `message` is read, so each door gives it in its
reader's language. Nothing is written when one is raised: access checks raise before any
write, and services raise inside their transaction.
"""

from __future__ import annotations

from django.utils.translation import gettext

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

    def __init__(self, template: str | Text, *, wait: int) -> None:
        super().__init__(template, wait=wait)
        self.wait = wait


def refused_by_rules(error: scoring.ScoringError) -> Refusal:
    """A refusal of the rules: about the deal's state (filed, ended) is a conflict, about
    the record itself invalid."""
    return Conflict(error.text) if error.conflict else Invalid(error.text)
