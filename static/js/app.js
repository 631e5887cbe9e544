// SquareScores: the little the pages need beyond htmx attributes.
//
// A request that never got an answer (network down, timeout, server error) marks the
// element that sent it with .is-failed, which shows "not saved — tap to retry" on it.
// Its form still holds the same idempotency key, so the retry is applied at most once.
(function () {
  "use strict";

  function mark(event) {
    var element = event.detail && event.detail.elt;
    // Offline, nothing is "not saved": the bar says offline, and writes wait (offline.js).
    if (element && element.classList && navigator.onLine) {
      element.classList.add("is-failed");
    }
  }

  function clear(event) {
    var element = event.detail && event.detail.elt;
    if (element && element.classList) {
      element.classList.remove("is-failed");
    }
  }

  document.addEventListener("htmx:sendError", mark);
  document.addEventListener("htmx:responseError", mark);
  document.addEventListener("htmx:timeout", mark);
  document.addEventListener("htmx:beforeRequest", clear);
  document.addEventListener("htmx:afterOnLoad", function (event) {
    if (event.detail && event.detail.successful) {
      clear(event);
    }
  });
})();

// A new deal on the tap screen holds the screen a moment (HOLD_MS). The tap that files a
// deal draws the next one at once, with the filed deal's summary above the players: the
// second tap of a double tap, or a "did it take?" tap, then met a player of the new deal
// (out first before the cards were dealt) or opened the summary. While held, the screen
// takes no pointer (app.css: `.is-settling`, so the tap lands on nothing and the players
// fade in) and this swallows any click inside it (a key held down). The deal number is
// `data-deal` on #tap-screen, as the server drew it or as offline.js painted it from its
// queue; a change from the last one seen holds, whoever made it (this phone, online or
// offline, an Undo of a filing, or another phone's filing arriving live). No deal starts
// within a second of the last one: the cards are shuffled and dealt first.
(function () {
  "use strict";

  var HOLD_MS = 800;
  var shown = null; // the deal number last seen on the tap screen
  var until = 0;

  function release() {
    if (Date.now() >= until) {
      document.documentElement.classList.remove("is-settling");
    }
  }

  function note() {
    var screen = document.getElementById("tap-screen");
    var deal = screen ? screen.getAttribute("data-deal") : null;
    if (shown !== null && deal !== null && deal !== shown) {
      until = Date.now() + HOLD_MS;
      document.documentElement.classList.add("is-settling");
      window.setTimeout(release, HOLD_MS);
    }
    shown = deal;
  }

  document.addEventListener(
    "click",
    function (event) {
      if (Date.now() < until && event.target.closest && event.target.closest("#tap-screen")) {
        event.preventDefault();
        event.stopPropagation();
      }
    },
    true
  );
  document.addEventListener("htmx:afterSwap", note);
  document.addEventListener("squarescores:painted", note);
  note();
})();

// A bottom sheet's ✕ closes it (the sheet is a <details>; its own button is under the sheet).
document.addEventListener("click", function (event) {
  var close = event.target.closest && event.target.closest("[data-close-sheet]");
  if (close) {
    var sheet = close.closest("details");
    if (sheet) {
      sheet.open = false;
    }
  }
});

// Live pages (standings, the tap screen) follow their session. The element marked
// `data-live` names the session's stream of versions (server-sent events) and the version
// it shows; when a newer one is announced, it is sent the htmx event "live", which
// fetches it again. The fetch waits while a sheet is open (its choices would be swapped
// away) or one of this phone's own writes is on its way, and goes as soon as they are
// done. A hidden page closes its stream and opens it again when shown: the stream's first
// event is the version now, so nothing is missed. Where no stream can be had (no
// EventSource, a proxy that holds events back), the page asks every 1.5 s instead; an
// unchanged session answers that with an empty 204. Without a signal it rests: closed
// while the phone is offline, open again when it is back; and while the phone's offline
// queue is sending what waited (static/js/offline.js) a fetch waits like for a write.
// A follower marked `data-live-push` (the standings) is sent its new fragment down the
// stream (`event: standings`) instead of fetching it; it waits like a fetch would.
(function () {
  "use strict";

  var POLL_MS = 1500;
  var FIRST_EVENT_MS = 5000;
  var source = null;
  var poller = null;
  var pending = false;
  var pushed = null; // a fragment the stream sent while the page was busy

  function follower() {
    return document.querySelector("[data-live]");
  }

  function busy() {
    return (
      document.documentElement.classList.contains("is-sending") ||
      document.querySelector("details[open] > .sheet") !== null ||
      document.querySelector(".htmx-request:not([data-live])") !== null
    );
  }

  function refresh() {
    var element = follower();
    if (!element || !window.htmx || !navigator.onLine) {
      return;
    }
    if (busy()) {
      pending = true;
      return;
    }
    pending = false;
    if (pushed !== null) {
      var html = pushed;
      pushed = null;
      window.htmx.swap(element, html, { swapStyle: "outerHTML" });
      return;
    }
    window.htmx.trigger(element, "live");
  }

  function announced(version) {
    var element = follower();
    if (element && element.hasAttribute("data-live-push")) {
      return; // the stream sends what changed itself
    }
    if (element && Number(version) > Number(element.getAttribute("data-version"))) {
      refresh();
    }
  }

  function stop() {
    pushed = null; // the next stream sends what differs from what the page shows
    if (source) {
      source.close();
      source = null;
    }
    if (poller) {
      window.clearInterval(poller);
      poller = null;
    }
  }

  function poll() {
    stop();
    poller = window.setInterval(refresh, POLL_MS);
  }

  function start() {
    var element = follower();
    if (
      !element ||
      source ||
      poller ||
      document.visibilityState === "hidden" ||
      !navigator.onLine
    ) {
      return;
    }
    if (!window.EventSource) {
      poll();
      return;
    }
    var heard = false;
    var stream = new window.EventSource(element.getAttribute("data-live"));
    source = stream;
    stream.onmessage = function (event) {
      heard = true;
      announced(event.data);
    };
    stream.addEventListener("standings", function (event) {
      heard = true;
      pushed = event.data;
      refresh();
    });
    stream.onerror = function () {
      // EventSource reconnects by itself; a stream refused outright stays closed.
      if (source === stream && stream.readyState === window.EventSource.CLOSED) {
        poll();
      }
    };
    window.setTimeout(function () {
      if (source === stream && !heard) {
        poll();
      }
    }, FIRST_EVENT_MS);
  }

  window.addEventListener("offline", stop);
  window.addEventListener("online", function () {
    start();
    refresh(); // what changed while offline
  });
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "hidden") {
      stop();
    } else {
      start();
    }
  });
  document.addEventListener("htmx:afterSettle", function () {
    if (!follower()) {
      stop();
      return;
    }
    start();
    if (pending) {
      refresh();
    }
  });
  document.addEventListener("htmx:afterRequest", function () {
    if (pending) {
      window.setTimeout(refresh, 0); // once this request no longer counts as on its way
    }
  });
  // A sheet closed: what waited for it goes now. (`toggle` does not bubble.)
  document.addEventListener(
    "toggle",
    function () {
      if (pending) {
        refresh();
      }
    },
    true
  );
  start();
})();

// Share the end-of-night summary: the Web Share API where the phone has it (the share
// button shows only then: <html class="can-share">), else a copy button puts the text on
// the clipboard (or selects it, for the phone's own Copy, where there is no clipboard API).
if (navigator.share) {
  document.documentElement.classList.add("can-share");
}

document.addEventListener("click", function (event) {
  var share = event.target.closest && event.target.closest("[data-share]");
  if (share) {
    var said = document.getElementById(share.getAttribute("data-share"));
    if (said && navigator.share) {
      navigator.share({ title: share.getAttribute("data-title") || "", text: said.textContent })
        .catch(function () {});  // dismissed: nothing to do
    }
    return;
  }
  var copy = event.target.closest && event.target.closest("[data-copy]");
  if (!copy) {
    return;
  }
  var text = document.getElementById(copy.getAttribute("data-copy"));
  if (!text) {
    return;
  }
  function copied() {
    copy.classList.add("is-copied");
  }
  function select() {
    var range = document.createRange();
    range.selectNodeContents(text);
    var selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
  }
  if (navigator.clipboard && navigator.clipboard.writeText) {
    navigator.clipboard.writeText(text.textContent).then(copied, select);
  } else {
    select();
  }
});
