// SquareScores' service worker (served at /sw.js by tracker.views.offline).
//
// - The app shell (styles, scripts, icons, the "no signal" page) is kept when the worker
//   installs and answered from the phone: cache first.
// - A session's tap screen, standings and deal history are asked of the server first and
//   kept as last seen, so they open without a signal. Only answers the server marks
//   (X-Keep-Offline: tracker.views.doors.kept_offline) are kept: never the share page
//   (it shows the links' tokens), an account's pages, or the API.
// - Caches are named by a version that changes with the shell (a deploy): the old ones
//   are removed when the new worker activates.
// - Writes are not touched here: static/js/offline.js queues them on the page.
"use strict";

var VERSION = "{{ version }}";
var SHELL = "squarescores-shell-" + VERSION;
var PAGES = "squarescores-pages-" + VERSION;
var SHELL_URLS = {{ shell|safe }};
var OFFLINE_URL = {{ offline_url|safe }};
var REFRESH_MS = 1000;
var refreshing = {};

self.addEventListener("install", function (event) {
  event.waitUntil(
    caches.open(SHELL).then(function (cache) {
      return cache.addAll(SHELL_URLS);
    }).then(function () {
      return self.skipWaiting();
    })
  );
});

self.addEventListener("activate", function (event) {
  event.waitUntil(
    caches.keys().then(function (names) {
      return Promise.all(names.filter(function (name) {
        return name.indexOf("squarescores-") === 0 && name !== SHELL && name !== PAGES;
      }).map(function (name) {
        return caches.delete(name);
      }));
    }).then(function () {
      return self.clients.claim();
    })
  );
});

function keep(request, response) {
  if (response.ok && response.headers.get("X-Keep-Offline") === "1") {
    var copy = response.clone();
    return caches.open(PAGES).then(function (cache) {
      return cache.put(request, copy);
    }).then(function () {
      return response;
    });
  }
  if (response.status === 403 || response.status === 404 || response.redirected ||
      response.type === "opaqueredirect") {
    // Gone for this phone (a link revoked, a membership ended, a sign-in that ran out and
    // was sent to sign in again): forget what was kept, or the next person on the phone
    // would open it without a signal.
    return caches.open(PAGES).then(function (cache) {
      return cache.delete(request);
    }).then(function () {
      return response;
    });
  }
  return Promise.resolve(response);
}

function pageFromNetwork(request) {
  return fetch(request).then(function (response) {
    return keep(request, response);
  }, function () {
    return caches.match(request, { cacheName: PAGES, ignoreSearch: true }).then(function (kept) {
      return kept || caches.match(OFFLINE_URL, { cacheName: SHELL });
    }).then(function (answer) {
      return answer || Response.error();
    });
  });
}

self.addEventListener("fetch", function (event) {
  var request = event.request;
  var url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== self.location.origin) {
    return;
  }
  if (url.pathname.indexOf("/static/") === 0) {
    event.respondWith(
      caches.match(request, { cacheName: SHELL }).then(function (kept) {
        return kept || fetch(request);
      })
    );
    return;
  }
  if (request.mode === "navigate") {
    event.respondWith(pageFromNetwork(request));
  }
  // Everything else (htmx fragments, the live stream, the API) goes to the network as it
  // would without a worker.
});

// Background Sync (where the browser has it): the signal is back; the open pages send
// what waits (the queue lives with them, static/js/offline.js).
self.addEventListener("sync", function (event) {
  if (event.tag === "squarescores-queue") {
    event.waitUntil(
      self.clients.matchAll({ type: "window" }).then(function (windows) {
        windows.forEach(function (client) {
          client.postMessage({ type: "sync" });
        });
      })
    );
  }
});

// The page asks for its address to be kept again after htmx changed it (a tap): fetched
// once a second at most, however many taps.
self.addEventListener("message", function (event) {
  var data = event.data || {};
  if (data.type === "keep" && typeof data.url === "string") {
    var url = new URL(data.url, self.location.origin);
    if (url.origin !== self.location.origin || refreshing[url.href]) {
      return;
    }
    refreshing[url.href] = true;
    setTimeout(function () {
      delete refreshing[url.href];
      var request = new Request(url.href, { credentials: "same-origin" });
      fetch(request).then(function (response) {
        return keep(request, response);
      }).catch(function () {});
    }, REFRESH_MS);
  } else if (data.type === "forget") {
    // Signing out: nothing one account saw is shown to the next.
    event.waitUntil(caches.delete(PAGES));
  }
});
