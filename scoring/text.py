"""Sentences for people, kept as a template and its values so that whoever shows one can
say it in the reader's language.

`scoring` cannot import Django, so a template is marked with `gettext_noop`, the name
Django's makemessages looks for, and translated only where it is shown:
`text.render(gettext)`. Rendered without a translator it is the English sentence.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

Translate = Callable[[str], str]


def gettext_noop(template: str) -> str:
    """Mark a template for translation; it stays English until it is rendered."""
    return template


def _as_is(template: str) -> str:
    return template


@dataclass(frozen=True)
class Text:
    """A `%(name)s`-style template and its values; a value may itself be a `Text`."""

    template: str
    values: Mapping[str, object] = field(default_factory=dict, hash=False)

    def render(self, translate: Translate = _as_is) -> str:
        sentence = translate(self.template)
        if not self.values:
            return sentence
        values = {
            key: value.render(translate) if isinstance(value, Text) else value
            for key, value in self.values.items()
        }
        return sentence % values

    def __str__(self) -> str:
        return self.render()


ORDINALS = {
    1: gettext_noop("1st"),
    2: gettext_noop("2nd"),
    3: gettext_noop("3rd"),
    4: gettext_noop("4th"),
    5: gettext_noop("5th"),
    6: gettext_noop("6th"),
    7: gettext_noop("7th"),
    8: gettext_noop("8th"),
}


def ordinal(place: int) -> Text:
    """A place at the table in words: "1st" ... "8th" (a table seats at most 8)."""
    return Text(ORDINALS[place])
