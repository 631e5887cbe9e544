"""House rules for the markup: no inline JavaScript or CSS anywhere in the templates."""

import re
from pathlib import Path

TEMPLATES = Path(__file__).resolve().parents[2] / "templates"
INLINE = [
    (re.compile(r"<script(?![^>]*\bsrc=)[^>]*>", re.I), "a <script> block"),
    (re.compile(r"<style\b", re.I), "a <style> block"),
    (re.compile(r"\sstyle\s*=", re.I), "a style attribute"),
    (re.compile(r"\son[a-z]+\s*=", re.I), "an on* handler attribute"),
    (re.compile(r"\shx-on", re.I), "an hx-on handler attribute"),
    (re.compile(r"javascript:", re.I), "a javascript: URL"),
]


def test_templates_have_no_inline_javascript_or_css():
    found = [
        f"{path.relative_to(TEMPLATES)}: {what}"
        for path in sorted(TEMPLATES.rglob("*.html"))
        for pattern, what in INLINE
        if pattern.search(path.read_text(encoding="utf-8"))
    ]

    assert found == []


def test_every_template_with_words_loads_i18n():
    missing = [
        str(path.relative_to(TEMPLATES))
        for path in sorted(TEMPLATES.rglob("*.html"))
        if "translate" in (text := path.read_text(encoding="utf-8"))
        and not re.search(r"{% load [^%]*\bi18n\b", text)
    ]

    assert missing == []
