"""No control is ever covered by another (issue 11): for every button, chip, link and field
of every screen and every sheet, the element at its centre (`document.elementFromPoint`)
is the control itself, once it is scrolled into view — at 320×568 and 360×640, in
English and Vietnamese, with 40-character names, from two players to eight.

While a sheet is open only its own controls count: the sheet is the top layer, and what
it covers is meant to be covered."""

import pytest
from playwright.sync_api import expect

import scoring
from tests.browser.conftest import sign_in
from tracker.services import deal_event_record, deal_tap

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

NAMES = [
    "Nguyễn Thị Minh Khai Phương Thảo Hồng Nh",
    "Trần Văn Bảo Long Hoàng Gia Khánh Duy Ân",
    "Lê Thị Ngọc Diễm Kiều Trang Mỹ Linh Châu",
    "Phạm Quốc Huy Đăng Khoa Thiên Ân Bảo Tín",
    "Christopher Maximilian Alexander Jonatha",
    "Võ Thị Thanh Thúy Hạnh Nguyên Bích Ngọc",
    "Đặng Minh Quân Trường Giang Hải Đăng Phú",
    "Hoàng Anh Tuấn Kiệt Nhật Minh Quang Vinh",
]
SIZES = [{"width": 320, "height": 568}, {"width": 360, "height": 640}]
EVERYTHING = scoring.Options(
    penalties=True, guaransheed=True, got_to_get_in=True, instant_wins=True
)
TWO_PACKS = scoring.Options(penalties=True, guaransheed=True, got_to_get_in=True)  # no instant wins

# Every control a finger can land on, and where it counts from.
CONTROLS = "button, summary, a.button, a.session-nav__link, label.chip, input[type=text]"
COVERED = """
([root, selector]) => {
  const scope = root ? document.querySelector(root) : document;
  const covered = [];
  for (const control of scope.querySelectorAll(selector)) {
    // Not drawn: inside a closed <details>, display none, visibility hidden.
    if (!control.checkVisibility({checkVisibilityCSS: true})) continue;
    control.scrollIntoView({block: "center", inline: "center"});
    const box = control.getBoundingClientRect();
    if (box.width === 0 || box.height === 0) continue;
    const hit = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
    if (!hit || !(hit === control || control.contains(hit))) {
      const name = control.innerText || control.getAttribute("aria-label") || control.name;
      const under = hit ? (hit.closest("[class]") || hit).className : "nothing";
      covered.push(`${(name || "?").trim().slice(0, 50)} under ${under}`);
    }
  }
  return covered;
}
"""


# Names drawn past their button's edge: a row that cannot grow to what it holds (a
# 40-character name on five lines at 320 px, with its badges).
SPILLED = """
() => [...document.querySelectorAll('.player__tap')].filter(button => {
  const box = button.getBoundingClientRect();
  return [...button.children].some(part => {
    const drawn = part.getBoundingClientRect();
    return drawn.height && (drawn.top < box.top - 0.5 || drawn.bottom > box.bottom + 0.5);
  });
}).map(button => button.innerText.trim().split("\\n")[0].slice(0, 50))
"""


# Words of a name that a line break cuts in two ("Christophe / r").
BROKEN_WORDS = """
(selector) => {
  const broken = [];
  for (const name of document.querySelectorAll(selector)) {
    const text = name.firstChild && name.firstChild.nodeType === 3 ? name.firstChild : null;
    if (!text || !name.checkVisibility()) continue;
    let start = 0;
    for (const word of text.data.split(" ")) {
      const range = document.createRange();
      range.setStart(text, start);
      range.setEnd(text, start + word.length);
      const lines = new Set([...range.getClientRects()].map((box) => Math.round(box.top)));
      if (lines.size > 1) broken.push(word);
      start += word.length + 1;
    }
  }
  return broken;
}
"""


def covered(page, root=None):
    return page.evaluate(COVERED, [root, CONTROLS])


def each_sheet(page, scope=""):
    """Open each sheet of the screen in turn; yield its name while it is open."""
    summaries = page.locator(f"{scope} details.action > summary")
    for index in range(summaries.count()):
        summary = summaries.nth(index)
        name = summary.inner_text()
        summary.click()
        expect(page.locator("details[open] > .sheet")).to_be_visible()
        yield name
        page.locator("details[open] > .sheet [data-close-sheet]").click()
        expect(page.locator("details[open] > .sheet")).to_have_count(0)


def check_screen_and_sheets(page, label, problems, scope=""):
    problems += [f"{label}: {control}" for control in covered(page)]
    for sheet in each_sheet(page, scope):
        problems += [
            f"{label} / {sheet}: {control}" for control in covered(page, "details[open] > .sheet")
        ]


@pytest.fixture(params=["en-GB", "vi-VN"])
def locale(request):
    return request.param


@pytest.mark.parametrize("size", SIZES, ids=["320x568", "360x640"])
def test_no_control_is_covered_on_any_screen_or_sheet(
    new_phone, make_session, actor, locale, size, screenshot
):
    four, players = make_session(players=NAMES[:4], options=EVERYTHING)
    deal = four.deals.get()
    deal_tap(deal_id=deal.pk, player_id=players[NAMES[0]].pk, actor=actor)
    deal_event_record(
        deal_id=deal.pk,
        event=scoring.TwoBeaten(
            by=players[NAMES[1]].pk,
            owner=players[NAMES[2]].pk,
            beaten_with=scoring.Beater.CUTUP,
            black=1,
        ),
        actor=actor,
    )
    eight, crowd = make_session(players=NAMES, options=TWO_PACKS)
    for name in NAMES[:3]:
        deal_tap(deal_id=eight.deals.get().pk, player_id=crowd[name].pk, actor=actor)
    by_card, cards = make_session(
        players=NAMES[:2], format="winner_takes_all", stake_rule="pro_play"
    )
    deal_tap(deal_id=by_card.deals.get().pk, player_id=cards[NAMES[0]].pk, actor=actor)
    filed, trio = make_session(players=NAMES[:3], options=EVERYTHING)
    for name in NAMES[:3]:
        deal_tap(deal_id=filed.deals.get(number=1).pk, player_id=trio[name].pk, actor=actor)

    page = new_phone(locale=locale)
    page.set_viewport_size(size)
    sign_in(page, "host", "table-of-four")
    problems: list[str] = []

    for session, what in (
        (four, "tap, four players, mid-deal"),
        (eight, "tap, eight players, who lost"),
        (by_card, "tap, Pro-Play hands"),
        (filed, "tap, a deal just filed"),
    ):
        page.goto(f"/sessions/{session.pk}/")
        problems += [
            f"{what}: {word!r} broken across lines"
            for word in page.evaluate(BROKEN_WORDS, ".player__name bdi, .seat-line__name")
        ]
        problems += [f"{what}: {name!r} drawn past its button" for name in page.evaluate(SPILLED)]
        check_screen_and_sheets(page, what, problems)
    screenshot(page, f"covered-{locale}-{size['width']}-tap")

    for path, what in (
        (f"/sessions/{filed.pk}/deals/1/", "deal page"),
        (f"/sessions/{four.pk}/players/", "players"),
        (f"/sessions/{eight.pk}/players/", "players, eight seated"),
        (f"/sessions/{four.pk}/standings/", "standings"),
        (f"/sessions/{filed.pk}/settle/", "settle up"),
        (f"/sessions/{four.pk}/share/", "share"),
        (f"/sessions/{four.pk}/end/", "end match"),
        (f"/sessions/{four.pk}/deals/", "deals"),
    ):
        page.goto(path)
        check_screen_and_sheets(page, what, problems)

    assert problems == [], "\n".join(problems)
