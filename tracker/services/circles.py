"""Circles: start one, rename it; and the name rules circles, players and sessions share."""

from __future__ import annotations

import unicodedata

from django.contrib.auth.models import User
from django.db import transaction
from django.utils.translation import gettext_noop

from tracker.errors import Invalid
from tracker.models import Circle

NAME_MISSING = {
    "circle": gettext_noop("The circle needs a name."),
    "player": gettext_noop("The player needs a name."),
    "session": gettext_noop("The session needs a name."),
}
NAME_TOO_LONG = {
    "circle": gettext_noop("The circle's name can be at most %(longest)s characters."),
    "player": gettext_noop("The player's name can be at most %(longest)s characters."),
    "session": gettext_noop("The session's name can be at most %(longest)s characters."),
}
LONGEST_NAME = {"circle": 80, "player": 40, "session": 80}
# Unicode categories a name loses: format characters (zero-width, bidi controls, soft
# hyphen, BOM), controls, surrogates, private use and unassigned code points.
INVISIBLE = frozenset({"Cf", "Cc", "Cs", "Co", "Cn"})


def _normal(name: str) -> str:
    name = unicodedata.normalize("NFKC", str(name))
    name = "".join(
        " " if char.isspace() else char
        for char in name
        if char.isspace() or unicodedata.category(char) not in INVISIBLE
    )
    return " ".join(name.split())


def name_key(name: str) -> str:
    """What two names of one circle must not share: the name as `clean_name` keeps it,
    case folded ("Dupe", "dupe", "Ｄupe", "Du\u00adpe" are one name). Works on names
    stored before names were cleaned, too."""
    return _normal(name).casefold()


def clean_name(name: str, *, what: str) -> str:
    """A name as it is kept, so that names which look alike are alike:

    - NFKC: compatibility forms become the plain letter ("Ｄupe" is "Dupe", "ﬁ" is "fi");
    - invisible and control characters go (zero-width spaces and joiners, the byte order
      mark, soft hyphens, right-to-left overrides and isolates: Unicode's "Cf" and "Cc"),
      so "Dupe\u200b" is "Dupe" and no name can turn the text around it right to left;
    - runs of spaces (any kind) become one space, none at either end.

    Refused: a name with nothing left, or too long for `what`.
    """
    name = _normal(name)
    if not name:
        raise Invalid(NAME_MISSING[what])
    longest = LONGEST_NAME[what]
    if len(name) > longest:
        raise Invalid(NAME_TOO_LONG[what], longest=longest)
    return name


@transaction.atomic
def circle_create(*, owner: User, name: str) -> Circle:
    circle = Circle.objects.create(owner=owner, name=clean_name(name, what="circle"))
    circle.members.add(owner)
    return circle


@transaction.atomic
def circle_rename(*, circle: Circle, name: str) -> Circle:
    circle.name = clean_name(name, what="circle")
    circle.save(update_fields=["name"])
    return circle
