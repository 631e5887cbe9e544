// SquareScores as an installed app: registers the service worker (/sw.js, served from the
// site's root so it controls every page; its address is on this script's tag) and tells
// it when a kept page changed or when the phone signs out.
(function () {
  "use strict";

  if (!("serviceWorker" in navigator)) {
    return;
  }
  var script = document.currentScript;
  var workerUrl = script && script.getAttribute("data-worker");
  if (!workerUrl) {
    return;
  }
  navigator.serviceWorker.register(workerUrl, { scope: "/" }).catch(function () {
    // No worker (a private window, a browser that refuses): the pages work as before.
  });

  function tell(message) {
    var worker = navigator.serviceWorker.controller;
    if (worker) {
      worker.postMessage(message);
    }
  }

  // A kept page (the tap screen, standings) changed in place: keep it as it is now, so it
  // opens offline as last seen, not as it was when first opened. Only when the session's
  // version moved (not for a sheet's Save label), and the worker asks once a second at
  // most.
  function shownVersion() {
    var follower = document.querySelector("[data-live]");
    return follower ? follower.getAttribute("data-version") : null;
  }
  var keptVersion = shownVersion(); // the page as opened was kept when it was fetched
  document.addEventListener("htmx:afterSettle", function () {
    var version = shownVersion();
    if (version !== null && version !== keptVersion && navigator.onLine) {
      keptVersion = version;
      tell({ type: "keep", url: window.location.href });
    }
  });

  window.SquareScoresWorker = { tell: tell };
})();
