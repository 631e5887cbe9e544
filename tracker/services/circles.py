"""Circles: start one, rename it; and the name rules circles, players and sessions share."""

from __future__ import annotations

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


def clean_name(name: str, *, what: str) -> str:
    """A name as it is kept: spaces tidied, not blank, not too long for `what`."""
    name = " ".join(str(name).split())
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
