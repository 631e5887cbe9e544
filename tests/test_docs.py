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


# House rules of the seeds that would change what is scored or owed (issue 10): each is
# quoted as the seed says it, and docs/rules.md must say what SquareScores does about it.
SEEDS = ROOT.parent / "shared" / "seeds"
SEED_HOUSE_RULES = {
    "000": [
        "the last person to be chopped owes",
        "when not owing anybody",
        "The loser owes the winner a 2",
        "5 consecutive pairs (not including 2",
        'only "Four 2s" is played',
        "they will have the game restarted",
        "defeat as many as four 2s",
        "There are no combinations that can beat a double 2",
        "can also defeat a double sequence",
        "There are no instant wins",
        "No instant wins",
        "The straight pairs can beat any single card",
        "Straights ending in 2s can be bombed",
        "has not yet played a card",
        "Cutting or bombing another cutup",
        "must give 2 point to each player",
    ],
    "001": [
        "the leader takes the odd card",
        "swap cards by agreement",
        "the holder of the lowest card dealt leads",
        "four twos dealt to one hand win the deal outright",
    ],
}
# Where docs/rules.md takes each up, in its own words.
RULES_SAY = {
    "the last person to be chopped owes": "Who owes cards after a chop",
    "when not owing anybody": "not owing anybody",
    "The loser owes the winner a 2": "The loser owes the winner their unused 2s",
    "5 consecutive pairs (not including 2": "5 consecutive pairs is a session option",
    'only "Four 2s" is played': "Only four 2s as an instant win",
    "they will have the game restarted": "Four 2s dealt restart the deal",
    "defeat as many as four 2s": "Beating four 2s",
    "There are no combinations that can beat a double 2": "can beat a double 2 or triple 2",
    "can also defeat a double sequence": "A bomb beating a cutup",
    "There are no instant wins": "One pack only",
    "No instant wins": 'Pro-Play\'s "No instant wins"',
    "The straight pairs can beat any single card": "Straight pairs beating any single card",
    "Straights ending in 2s can be bombed": "Straights ending in 2s can be bombed",
    "has not yet played a card": "A player who never played holds the whole hand",
    "Cutting or bombing another cutup": "Only a cutup's earning can be doubled again",
    "must give 2 point to each player": "## Guaransheed",
    "the leader takes the odd card": "the leader taking the odd card",
    "swap cards by agreement": "Free trading by agreement",
    "the holder of the lowest card dealt leads": '"3♠ leads"',
    "four twos dealt to one hand win the deal outright": "## Instant wins",
}


def test_rules_take_up_every_scoring_house_rule_of_the_seeds():
    rules = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")

    missing = [quote for quote, said in RULES_SAY.items() if said not in rules]

    assert missing == []
    assert sorted(RULES_SAY) == sorted(q for quotes in SEED_HOUSE_RULES.values() for q in quotes)


def test_seed_house_rules_are_quoted_as_the_seeds_say_them():
    if not SEEDS.is_dir():  # shared/ lies beside the clone on the project's machines
        return
    misquoted = [
        (seed, quote)
        for seed, quotes in SEED_HOUSE_RULES.items()
        for quote in quotes
        if quote not in next(SEEDS.glob(f"{seed}_*.txt")).read_text(encoding="utf-8")
    ]

    assert misquoted == []


def test_every_refusal_code_the_app_gives_is_in_the_api_s_list():
    """docs/api.md lists the stable codes a program may act on: each one the app raises
    is there (a tester found `deal_closed` answered but listed nowhere)."""
    raised: set[str] = set()
    for path in (ROOT / "tracker").rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        raised |= set(re.findall(r'code="([a-z_]+)"', text))  # raise Conflict(..., code=...)
        raised |= set(re.findall(r'"code":\s*"([a-z_]+)"', text))  # an answer written out
        raised |= set(re.findall(r'^\s+code = "([a-z_]+)"', text, re.MULTILINE))  # a class's
    listed = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    # A Forbidden is always raised with a code of its own; its class's reaches nobody.
    given = raised - {"forbidden"}

    assert sorted(code for code in given if f"`{code}`" not in listed) == []
