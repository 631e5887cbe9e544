// SquareScores: the little the pages need beyond htmx attributes.
//
// A request that never got an answer (network down, timeout, server error) marks the
// element that sent it with .is-failed, which shows "not saved — tap to retry" on it.
// Its form still holds the same idempotency key, so the retry is applied at most once.
(function () {
  "use strict";

  function mark(event) {
    var element = event.detail && event.detail.elt;
    if (element && element.classList) {
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

// The tap screen follows the other phones (`data-follow` polls the session's version). A
// poll waits while a sheet is open (its choices would be swapped away), while one of this
// phone's own writes is on its way, and while the page is hidden.
document.addEventListener("htmx:beforeRequest", function (event) {
  var element = event.detail && event.detail.elt;
  if (!element || !element.hasAttribute || !element.hasAttribute("data-follow")) {
    return;
  }
  var busy =
    document.visibilityState === "hidden" ||
    document.querySelector("details[open] > .sheet") !== null ||
    document.querySelector(".htmx-request:not([data-follow])") !== null;
  if (busy) {
    event.preventDefault();
  }
});
