"""The standings fragment renders its counts unlocalized (`{% localize off %}`: a fifth of
its render went to formatting each count for the language, issue 15, session 14). What a
phone shows is the same page as with every number localized, in both languages: the
average place, a decimal, is localized on its own (2.50 in English, 2,50 in Vietnamese).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.conf import settings as django_settings

from tests.views.helpers import htmx, play_deals

pytestmark = pytest.mark.django_db

TABLE = "standings/_table.html"


def every_number_localized() -> str:
    """The fragment's template as it would be with Django's default: each number localized."""
    source = (Path(django_settings.BASE_DIR) / "templates" / TABLE).read_text()
    assert "{% localize off %}" in source and "|localize" in source
    return (
        source.replace("{% localize off %}", "")
        .replace("{% endlocalize %}", "")
        .replace("|localize", "")
    )


def fragment(member, session, language: str, asked: int) -> str:
    path = f"/sessions/{session.pk}/standings/?version=stale&asked={asked}"
    response = member.get(path, HTTP_ACCEPT_LANGUAGE=language, **htmx())
    assert response.status_code == 200
    return response.text


@pytest.mark.parametrize("language", ["en", "vi"])
def test_the_fragment_reads_as_with_every_number_localized(
    member, table, actor, settings, language
):
    session, players = table
    play_deals(session, players, 7, actor)
    ours = fragment(member, session, language, 1)

    settings.TEMPLATES = [
        {
            **settings.TEMPLATES[0],
            "APP_DIRS": False,
            "OPTIONS": {
                **settings.TEMPLATES[0]["OPTIONS"],
                "loaders": [
                    ("django.template.loaders.locmem.Loader", {TABLE: every_number_localized()}),
                    "django.template.loaders.filesystem.Loader",
                    "django.template.loaders.app_directories.Loader",
                ],
            },
        }
    ]
    localized = fragment(member, session, language, 2)

    assert ours == localized
    separator = "," if language == "vi" else "."
    assert re.search(rf'<td class="num">[1-4]\{separator}[0-9]{{2}}</td>', ours)
