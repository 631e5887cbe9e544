"""The sentences the rules and the services refuse with are said in the reader's
language: every one is in the Vietnamese catalogue, and the pages and the API use it."""

import ast
import gettext as gettext_module
import re
from decimal import Decimal
from pathlib import Path

import pytest
from django.urls import reverse
from django.utils import translation
from rest_framework.test import APIClient

import scoring
from scoring.text import Text, gettext_noop, ordinal
from tests.views.helpers import htmx, open_deal
from tracker.errors import Invalid
from tracker.models import Tap

ROOT = Path(__file__).resolve().parents[1]
# Every module that marks a sentence to be said later: the rules, and every layer of the
# app that refuses (access, the write gate, services, selectors, the API, the pages).
SOURCES = [
    *sorted((ROOT / "scoring").glob("*.py")),
    *sorted(path for path in (ROOT / "tracker").rglob("*.py") if "migrations" not in path.parts),
]
PLACEHOLDER = re.compile(r"%\((\w+)\)s")


def marked_templates():
    """Every literal passed to gettext_noop in the rules and the app."""
    for path in SOURCES:
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id == "gettext_noop"
            ):
                (argument,) = node.args
                assert isinstance(argument, ast.Constant), f"{path.name}:{node.lineno}"
                yield argument.value


TEMPLATES = sorted(set(marked_templates()))


def test_the_sources_mark_their_sentences():
    assert len(TEMPLATES) > 80  # the walk above really finds them


@pytest.mark.parametrize("template", TEMPLATES)
def test_every_refusal_has_a_vietnamese_sentence_with_the_same_values(template):
    with translation.override("vi"):
        said = translation.gettext(template)

    assert said != template, f"not translated: {template!r}"
    assert sorted(PLACEHOLDER.findall(said)) == sorted(PLACEHOLDER.findall(template))


def test_a_text_renders_its_values_and_nested_texts_in_one_language():
    text = Text(
        gettext_noop("That correction does not add up: %(reason)s"),
        {
            "reason": Text(
                gettext_noop("%(player)s is already out (%(place)s)."),
                {"player": "Alice", "place": ordinal(1)},
            )
        },
    )

    with translation.override("vi"):
        vietnamese = text.render(translation.gettext)

    assert str(text) == "That correction does not add up: Alice is already out (1st)."
    assert vietnamese == "Chỉnh sửa đó không hợp lệ: Alice đã về rồi (Nhất)."


def test_a_service_refusal_is_said_in_the_active_language():
    error = Invalid(gettext_noop("%(name)s is seated twice."), name="Ben")

    with translation.override("vi"):
        vietnamese = error.message
    with translation.override("en"):
        english = error.message

    assert (english, str(error)) == ("Ben is seated twice.", "Ben is seated twice.")
    assert vietnamese == "Ben được xếp chỗ hai lần."


def test_a_scoring_refusal_keeps_its_english_message():
    with pytest.raises(scoring.ScoringError) as refused:
        scoring.check_stake(Decimal("0"))

    assert refused.value.message == "The stake must be more than 0."
    assert refused.value.text == Text("The stake must be more than 0.", {})


@pytest.mark.django_db
def test_the_vietnamese_tap_screen_says_why_a_tap_is_refused(client, user, make_session):
    session, players = make_session()
    client.force_login(user)
    client.cookies["django_language"] = "vi"
    url = reverse("member:tap_player", kwargs={"session_id": session.pk})
    data = {"deal": open_deal(session).pk, "player": players["Alice"].pk}
    client.post(url, data, **htmx())

    response = client.post(url, data, **htmx())

    assert "Chưa lưu: Alice đã về rồi (Nhất)." in response.text
    assert Tap.objects.count() == 1


@pytest.mark.django_db
def test_the_api_says_a_refusal_in_the_language_asked_for(user, make_session):
    api = APIClient()
    api.force_authenticate(user)
    session, players = make_session()
    deal = open_deal(session)
    url = f"/api/deals/{deal.pk}/taps/"
    api.post(url, {"player": players["Alice"].pk}, format="json")

    english = api.post(
        url, {"player": players["Alice"].pk}, format="json", HTTP_ACCEPT_LANGUAGE="en"
    )
    vietnamese = api.post(
        url, {"player": players["Alice"].pk}, format="json", HTTP_ACCEPT_LANGUAGE="vi"
    )

    assert english.json()["detail"] == "Alice is already out (1st)."
    assert vietnamese.json()["detail"] == "Alice đã về rồi (Nhất)."
    assert Tap.objects.count() == 1


def catalogue_entries():
    """(context, msgid, plural) -> msgstr from the Vietnamese .po (--no-wrap)."""
    text = (ROOT / "locale" / "vi" / "LC_MESSAGES" / "django.po").read_text()
    entries = {}
    for block in text.split("\n\n")[1:]:
        fields = {}
        for line in block.splitlines():
            if line.startswith("#, ") and "fuzzy" in line:
                fields["fuzzy"] = True
            for name in ("msgctxt", "msgid", "msgid_plural", "msgstr", "msgstr[0]"):
                if line.startswith(f"{name} "):
                    fields[name.removesuffix("[0]")] = ast.literal_eval(line[len(name) + 1 :])
        if "msgid" in fields:
            assert not fields.get("fuzzy"), f"fuzzy: {fields['msgid']!r}"
            key = (fields.get("msgctxt"), fields["msgid"], fields.get("msgid_plural"))
            entries[key] = fields["msgstr"]  # Vietnamese has one plural form
    return entries


def test_the_catalogue_is_translated_and_compiled():
    entries = catalogue_entries()
    with (ROOT / "locale" / "vi" / "LC_MESSAGES" / "django.mo").open("rb") as mo:
        compiled = gettext_module.GNUTranslations(mo)

    assert len(entries) > 300
    assert [msgid for (_, msgid, _), said in entries.items() if not said] == []
    # The committed .mo says what the .po says: compilemessages was run.
    assert {key: said_by(compiled, *key) for key in entries} == entries


def said_by(compiled, context, msgid, plural):
    if plural is not None:
        return compiled.ngettext(msgid, plural, 1)
    return compiled.pgettext(context, msgid) if context else compiled.gettext(msgid)


@pytest.mark.django_db
def test_a_player_id_not_at_the_table_is_named_in_the_language_asked_for(user, make_session):
    api = APIClient()
    api.force_authenticate(user)
    session, _players = make_session()
    url = f"/api/deals/{open_deal(session).pk}/taps/"

    english = api.post(url, {"player": 999999}, format="json", HTTP_ACCEPT_LANGUAGE="en")
    vietnamese = api.post(url, {"player": 999999}, format="json", HTTP_ACCEPT_LANGUAGE="vi")

    assert english.json()["detail"] == "Player 999999 is not playing this deal."
    assert vietnamese.json()["detail"] == "Người chơi 999999 không chơi ván này."
