"""The docs and the tree agree: every file the docs name exists, no name that moved is
still explained, and no scratch file is left in the package."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = [*sorted((ROOT / "docs").glob("*.md")), ROOT / "README.md"]
# A repository path written in backticks in the docs: `tracker/...`, `templates/...`.
DOC_PATH = re.compile(r"`((?:tracker|templates|scoring|tests|static)/[^`\s<>*]*)`")
# Names the one-door change retired (issue 9).
GONE = [
    "services.session_seat",
    "tracker.pages.",
    "tracker/pages/",
    "Deal.written",
    "tracker/views.py",
    "tracker/services.py",
    "tracker/selectors.py",
]


def test_docs_name_only_files_that_exist():
    missing = [
        (doc.relative_to(ROOT).as_posix(), path)
        for doc in DOCS
        for path in DOC_PATH.findall(doc.read_text(encoding="utf-8"))
        if not (ROOT / path.rstrip("/")).exists()
    ]

    assert missing == []


def test_docs_name_no_module_or_function_that_moved():
    found = [
        (doc.name, name) for doc in DOCS for name in GONE if name in doc.read_text(encoding="utf-8")
    ]

    assert found == []


def test_no_scratch_file_left_in_the_package():
    scratch = sorted(
        path.relative_to(ROOT).as_posix()
        for pattern in ("tracker/**/*.tmp", "tracker/**/*_old.py", "scoring/**/*.tmp")
        for path in ROOT.glob(pattern)
    )

    assert scratch == []
