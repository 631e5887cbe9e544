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
