"""Browser tests: Debian's chromium, headless, driven by Playwright's sync API against
pytest-django's live server.

Playwright's sync API keeps an event loop running in the test thread while it is open;
Django refuses database calls from a thread with a running loop unless
DJANGO_ALLOW_ASYNC_UNSAFE says this is deliberate — and it is: the test thread only sets
up and checks data while the browser waits. The variable is set only while the browser
is open (a leak would fail `check --deploy` elsewhere), and the browser is closed when
this package's tests are done, so no loop is left running for the tests after them.
"""

import shutil
import time
from pathlib import Path

import pytest

from tracker.views.live import thread_streams

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
PHONE = {"width": 360, "height": 640}
SCREENSHOTS = Path(__file__).resolve().parents[2] / "artifacts" / "screenshots"


@pytest.fixture(scope="package")
def chromium_browser():
    if not Path(CHROMIUM).exists():
        pytest.skip(f"needs chromium at {CHROMIUM} (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with pytest.MonkeyPatch.context() as patch, sync_playwright() as playwright:
        patch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
        )
        yield browser
        browser.close()


@pytest.fixture
def new_phone(chromium_browser, live_server):
    """Open a phone-sized browser context on the live server; closed after the test.

    Service workers are blocked unless asked for (`workers=True`, see `offline_phone`):
    the other tests see the pages exactly as a first visit does."""
    contexts = []

    def open_phone(locale: str = "en-GB", *, viewport=PHONE, workers: bool = False):
        context = chromium_browser.new_context(
            viewport=viewport,
            device_scale_factor=2,
            is_mobile=True,
            has_touch=True,
            locale=locale,
            base_url=live_server.url,
            service_workers="allow" if workers else "block",
        )
        context.set_default_timeout(5000)
        contexts.append(context)
        return context.new_page()

    yield open_phone
    for context in contexts:
        context.close()
    # A live page's stream reads from a thread of the live server: wait until the closed
    # phones' streams noticed, so none reads on into the next test's tables.
    deadline = time.monotonic() + 10
    while thread_streams.open and time.monotonic() < deadline:
        time.sleep(0.1)


@pytest.fixture
def phone(new_phone):
    return new_phone()


@pytest.fixture
def offline_phone(new_phone):
    """A phone whose service worker runs (to open pages and keep taps without a signal):
    `offline_phone()` opens one; `page.context.set_offline(True)` takes the signal away."""

    def open_phone(locale: str = "en-GB", *, viewport=PHONE):
        return new_phone(locale, viewport=viewport, workers=True)

    return open_phone


def worker_keeps(page, path: str) -> None:
    """Open `path` under the service worker's control, so that it keeps it: the first
    visit installs the worker, the second goes through it.

    The worker takes control only once it has fetched and kept the app's shell (its
    install), from a live server that CI runs beside a second suite on two cores: that
    took over the default 5 s there (twice in one day), so the waits allow 20. Once (session
    25) it took over 20 s: an install that met a busy server is tried again on the next
    visit, as a phone's would be, so the page is opened again, once, before failing."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

    controlled = "() => navigator.serviceWorker.controller !== null"
    page.goto(path)
    try:
        page.wait_for_function(controlled, timeout=20_000)
    except PlaywrightTimeoutError:
        page.reload()
        page.wait_for_function(controlled, timeout=20_000)
    page.reload()
    page.wait_for_function(
        "(path) => caches.keys().then(names => Promise.all(names.map(name => caches.open(name)"
        ".then(cache => cache.match(path))))).then(found => found.some(Boolean))",
        arg=path,
        timeout=20_000,
    )


@pytest.fixture
def screenshot():
    """Save what the phone shows to artifacts/screenshots/<database>/<name>.png (CI's two
    runs go side by side; `full_page`: the whole page; fixed bars then land mid-page, so
    the default is the screen as seen)."""
    from django.db import connection

    folder = SCREENSHOTS / connection.vendor
    folder.mkdir(parents=True, exist_ok=True)

    def take(page, name: str, *, full_page: bool = False) -> Path:
        path = folder / f"{name}.png"
        page.screenshot(path=path, full_page=full_page)
        return path

    return take


def fits_width(page) -> bool:
    """No horizontal scrolling: the page is no wider than the phone."""
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def sign_in(page, username: str, password: str) -> None:
    page.goto("/accounts/login/")
    page.locator("input[name=username]").fill(username)
    page.locator("input[name=password]").fill(password)
    page.locator("form.form button[type=submit]").click()
    page.wait_for_url("**/")


@pytest.fixture
def table_of_four(make_session):
    """Alice, Ben, Cara and Dev at the Friday table (podium, loser pays 1.00 USD)."""
    return make_session()
