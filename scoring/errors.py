"""The one exception scoring raises for a record, rule set or correction it refuses."""

from __future__ import annotations

from scoring.text import Text


class ScoringError(ValueError):
    """A record the rules refuse, with a sentence for the person who sent it.

    `text` is the sentence as a template and values (see `scoring.text`), `message` the
    same in English. `conflict` is True when the refusal is about the deal's state (it is
    already filed or ended) rather than about the record itself.
    """

    def __init__(self, template: str, *, conflict: bool = False, **values: object) -> None:
        self.text = Text(template, values)
        super().__init__(self.text.render())
        self.conflict = conflict

    @property
    def message(self) -> str:
        return self.text.render()
