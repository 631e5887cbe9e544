// SquareScores without a signal: writes made on the tap screen wait on the phone and are
// sent, in order and each exactly once, when the signal returns.
//
// - A tap, an undo or a sheet's entry made offline (or while others still wait) is not
//   sent: it is queued in IndexedDB with an idempotency key of its own, addressed to the
//   deal by its NUMBER (`<session>/deals/<n>/tap/`...), since the deal may not be open on
//   the server yet. A write whose request failed on the way (no answer) is queued as it
//   was sent, with the key it was sent with: if the server had applied it, sending it
//   again is answered from the server's idempotency record, not applied twice.
// - The screen shows at once what the queue holds (badges, the deal log, a deal filed
//   and the next one opened, marked provisional) from the plan the server put in the page
//   (#offline-plan: the orders in which the deal may be tapped out and what each comes
//   to, from `scoring`): nothing of the rules is computed here.
// - One loop sends the queue, oldest first, on the `online` event, on Background Sync
//   (the worker asks the page), and when a page opens; a failure waits longer each time
//   (backoff with jitter), so a returning signal is not met by a storm. A refusal (4xx
//   with a `code`) stops the queue there, saying what was not saved and why, with
//   Discard and Re-enter. Once the queue is empty the screen is fetched again: the
//   server's truth.
(function () {
  "use strict";

  var DB_NAME = "squarescores-offline";
  var SYNC_TAG = "squarescores-queue";
  var LONGEST_WAIT_MS = 30000;
  var SESSION_PATH = /^\/(sessions\/\d+|s\/[A-Za-z0-9_-]+)\//;

  var bar = document.getElementById("offline-bar");
  if (!bar || !window.indexedDB) {
    return;
  }
  var words = bar.dataset;
  var plan = null; // the server's plan for the open deal (#offline-plan)
  var queue = []; // this session's waiting writes, oldest first (as last read)
  var sending = false;
  var attempt = 0;
  var timer = null;

  function say(name, values) {
    var text = words[name] || "";
    Object.keys(values || {}).forEach(function (key) {
      text = text.split("{" + key + "}").join(String(values[key]));
    });
    return text;
  }

  function scope() {
    if (plan) {
      return plan.scope;
    }
    var match = SESSION_PATH.exec(window.location.pathname);
    return match ? "/" + match[1] + "/" : null;
  }

  // --- IndexedDB ------------------------------------------------------------------------

  var opened = null;

  function database() {
    if (!opened) {
      opened = new Promise(function (resolve, reject) {
        var request = window.indexedDB.open(DB_NAME, 1);
        request.onupgradeneeded = function () {
          var db = request.result;
          db.createObjectStore("queue", { keyPath: "id", autoIncrement: true });
          db.createObjectStore("plans", { keyPath: "scope" });
        };
        request.onsuccess = function () {
          resolve(request.result);
        };
        request.onerror = function () {
          reject(request.error);
        };
      });
    }
    return opened;
  }

  function store(name, mode, work) {
    return database().then(function (db) {
      return new Promise(function (resolve, reject) {
        var transaction = db.transaction(name, mode);
        var request = work(transaction.objectStore(name));
        transaction.oncomplete = function () {
          resolve(request ? request.result : undefined);
        };
        transaction.onerror = function () {
          reject(transaction.error);
        };
      });
    });
  }

  function readQueue() {
    var here = scope();
    return store("queue", "readonly", function (entries) {
      return entries.getAll();
    }).then(function (all) {
      queue = (all || []).filter(function (entry) {
        return entry.scope === here;
      });
      return queue;
    });
  }

  // --- What the queue holds, as the screen shows it --------------------------------------

  function tapsOf(records) {
    return records.filter(function (record) {
      return record.tap !== undefined;
    }).map(function (record) {
      return record.tap;
    });
  }

  // The player a tap is of: its key is their id, "L" first for the loser's.
  function playerOf(tap) {
    var key = String(tap);
    return key.charAt(0) === "L" ? key.slice(1) : key;
  }

  function nameOf(id, short) {
    var found = (plan.players || []).filter(function (player) {
      return String(player[0]) === String(id);
    })[0];
    // `short`: as Undo says it, "Nguyễn … Lan Vy" (the plan carries it: `told_apart`).
    return found ? (short && found[2]) || found[1] : "?";
  }

  // The deal as it stands with the queue applied: its number, its records (the server's,
  // then those waiting), the orders it may take, and the deals filed on the way.
  function project() {
    var state = {
      deal: plan.deal,
      records: plan.records.slice(),
      orders: plan.ahead.orders,
      filed: [],
    };
    queue.forEach(function (entry) {
      if (entry.deal !== state.deal) {
        return; // for a deal this screen does not show (the server moved on): sent as is
      }
      if (entry.kind === "tap") {
        state.records.push({ tap: entry.tap, waiting: true });
        var node = state.orders[tapsOf(state.records).join(",")];
        if (node && node.files) {
          state.filed.push({ number: state.deal, records: state.records, orders: state.orders, node: node });
          state.deal += 1;
          state.records = [];
          state.orders = plan.next.orders;
        }
      } else if (entry.kind === "event") {
        var before = state.orders[tapsOf(state.records).join(",")];
        state.records.push({ event: entry.label, waiting: true });
        // An instant win files the deal by itself: the plan says what, by claimant.
        var claim = entry.instant && before && before.instant && before.instant[entry.instant];
        if (claim) {
          state.filed.push({ number: state.deal, records: state.records, orders: state.orders, node: claim });
          state.deal += 1;
          state.records = [];
          state.orders = plan.next.orders;
        }
      } else if (entry.kind === "undo") {
        if (state.records.length) {
          state.records.pop();
        } else if (state.filed.length) {
          var back = state.filed.pop();
          state.deal = back.number;
          state.records = back.records.slice(0, -1);
          state.orders = back.orders;
        }
      }
    });
    return state;
  }

  function recordLabel(record, records) {
    if (record.event !== undefined) {
      return record.event;
    }
    var id = playerOf(record.tap);
    var place = tapsOf(records).indexOf(record.tap);
    // As the server says a tap ("Alice 1st", "Cara về Nhì", "Dev lost"), with the name
    // Undo says.
    if (String(record.tap).charAt(0) === "L") {
      return say("tappedLost", { name: nameOf(id, true) });
    }
    return say("tapped", { name: nameOf(id, true), place: plan.places[place] || "" });
  }

  function paintScreen() {
    var screen = document.getElementById("tap-screen");
    if (!screen || !plan || !queue.length) {
      return;
    }
    var state = project();
    var moved = state.deal !== plan.deal;
    var taps = tapsOf(state.records).map(String);
    var node = state.orders[taps.join(",")];
    // The deal the screen shows now (app.js holds the buttons a moment when it changes).
    screen.setAttribute("data-deal", String(state.deal));
    var title = screen.querySelector(".tap__deal");
    if (title) {
      title.textContent = "· " + say("deal", { number: state.deal });
    }
    var opening = screen.querySelector(".tap__opening");
    if (moved && opening) {
      var last = state.filed[state.filed.length - 1].node;
      opening.textContent =
        (last.dealer ? say("deals", { name: nameOf(last.dealer) }) : say("picks")) + " · " +
        (last.leader ? say("leads", { name: nameOf(last.leader) }) : say("spade"));
    }
    screen.querySelectorAll(".question, .question__title--or, .tap__status, .hands, .last-deal__trading, .last-deal__label").forEach(function (part) {
      part.hidden = moved || part.hidden;
    });
    // What is declared before anyone goes out (Guaransheed) is offered only on a deal with
    // no taps yet, as the server draws the screen: a declaration queued after a tap is
    // refused when it arrives, and stops the queue.
    screen.querySelectorAll("[data-before-taps]").forEach(function (sheet) {
      sheet.hidden = taps.length > 0;
      if (sheet.hidden) {
        sheet.open = false;
      }
    });
    screen.querySelectorAll(".players .player__tap[name=player]").forEach(function (button) {
      var id = String(button.value);
      var player = button.closest(".player");
      button.querySelectorAll(".badge--waiting").forEach(function (badge) {
        badge.remove();
      });
      button.querySelectorAll(".badge").forEach(function (badge) {
        badge.hidden = true;
      });
      var place = taps.indexOf(id);
      if (place < 0) {
        place = taps.indexOf("L" + id);
      }
      player.classList.toggle("player--out", place >= 0);
      // Who is out has played a card: not offered for Got to Get In any more.
      screen.querySelectorAll(".not-played input[value='" + id + "']").forEach(function (box) {
        box.closest("label").hidden = place >= 0;
      });
      // Who deals and leads: the server's words while it is the same deal; on a deal this
      // phone opened, the filed deal's loser and winner as the plan says.
      button.querySelectorAll(".player__roles--waiting").forEach(function (roles) {
        roles.remove();
      });
      button.querySelectorAll(".player__roles").forEach(function (roles) {
        roles.hidden = moved;
      });
      if (moved) {
        var opened = state.filed[state.filed.length - 1].node;
        var said = [];
        if (opened.dealer !== undefined && opened.dealer !== null && String(opened.dealer) === id) {
          said.push(say("roleDeals"));
        }
        if (opened.leader !== undefined && opened.leader !== null && String(opened.leader) === id) {
          said.push(say("roleLeads"));
        }
        if (said.length) {
          var roles = document.createElement("span");
          roles.className = "player__roles player__roles--waiting";
          said.forEach(function (word) {
            var role = document.createElement("span");
            role.className = "role";
            role.textContent = word;
            roles.appendChild(role);
          });
          button.querySelector(".player__name").after(roles);
        }
      }
      if (place >= 0) {
        var badge = document.createElement("span");
        badge.className = "badge badge--waiting";
        badge.textContent = plan.places[place] || "";
        button.querySelector(".player__name").after(badge);
        button.disabled = true;
      } else {
        button.disabled = Boolean(node && !node.files && node.tap.map(String).indexOf(id) < 0);
      }
    });
    // The deal log: the server's lines while it is the same deal, then what waits.
    var log = screen.querySelector(".deal-log__list");
    if (!log) {
      var section = document.createElement("section");
      section.className = "deal-log";
      log = document.createElement("ul");
      log.className = "deal-log__list";
      section.appendChild(log);
      screen.querySelector(".tap__players").after(section);
    }
    log.querySelectorAll("li").forEach(function (line) {
      if (line.classList.contains("deal-log__waiting")) {
        line.remove();
      } else {
        line.hidden = moved;
      }
    });
    state.records.forEach(function (record) {
      if (record.waiting && record.event !== undefined) {
        var line = document.createElement("li");
        line.className = "deal-log__waiting";
        line.textContent = record.event;
        log.appendChild(line);
      }
    });
    // The last deal filed here, provisional until the server has it.
    if (state.filed.length) {
      var filed = state.filed[state.filed.length - 1];
      var points = Object.keys(filed.node.points).sort(function (a, b) {
        return filed.node.points[b] - filed.node.points[a];
      }).map(function (id) {
        return nameOf(id, true) + " " + filed.node.points[id];
      }).join(" · ");
      var summary = screen.querySelector(".last-deal__summary");
      if (!summary) {
        var lastDeal = screen.querySelector(".last-deal");
        if (!lastDeal) {
          lastDeal = document.createElement("section");
          lastDeal.className = "last-deal";
          screen.querySelector(".tap__players").before(lastDeal);
        }
        // As the server draws it (templates/tap/_screen.html): three lines, a tap for all.
        var more = document.createElement("details");
        more.className = "last-deal__more";
        summary = document.createElement("summary");
        summary.className = "last-deal__summary";
        more.appendChild(summary);
        lastDeal.prepend(more);
      }
      summary.textContent = say("summary", { number: filed.number, points: points });
      summary.classList.add("is-provisional");
    }
    // Undo names what it would take back now.
    var undoText = say("nothing");
    var undoRecord = state.records[state.records.length - 1];
    if (undoRecord) {
      undoText = say("undo", { what: recordLabel(undoRecord, state.records) });
    } else if (state.filed.length) {
      var reopened = state.filed[state.filed.length - 1];
      undoRecord = reopened.records[reopened.records.length - 1];
      undoText = say("undoDeal", { number: reopened.number, what: recordLabel(undoRecord, reopened.records) });
    }
    // The server's words for its Undo question, kept before the first change: the phone
    // back on the deal the server drew (what it filed here undone again) asks the
    // server's question again, not one about a deal it no longer has.
    screen.querySelectorAll(".thumb-bar .undo-confirm").forEach(function (sheet) {
      if (!sheet.squareScoresDrawn) {
        var text = function (selector) {
          var found = sheet.querySelector(selector);
          return found ? found.textContent : "";
        };
        var save = sheet.querySelector(".sheet__save button");
        sheet.squareScoresDrawn = {
          title: text(".sheet__title"),
          why: text(".sheet > p"),
          label: text(".button--undo__label"),
          save: save && save.firstChild ? save.firstChild.nodeValue : "",
        };
      }
    });
    screen.querySelectorAll(".thumb-bar .button--undo").forEach(function (undo) {
      var label = undo.querySelector(".button--undo__label");
      if (label) {
        label.textContent = undoText;
      }
      if (undo.tagName === "BUTTON") {
        undo.disabled = !undoRecord;
      }
    });
    // The server drew Undo as a question (it would re-open the deal it filed last). With a
    // record waiting on this deal, Undo takes that back, as a plain Undo does: no question
    // (the summary sends at once, below). With a deal filed on this phone, the question
    // names that deal and the one it opened.
    screen.querySelectorAll(".thumb-bar .undo-confirm").forEach(function (sheet) {
      var plain = state.records.length > 0;
      sheet.classList.toggle("undo-confirm--plain", plain);
      if (plain) {
        sheet.open = false;
        return;
      }
      var title = sheet.querySelector(".sheet__title");
      var why = sheet.querySelector(".sheet > p");
      var label = sheet.querySelector(".button--undo__label");
      var save = sheet.querySelector(".sheet__save button");
      var saveText = save && save.firstChild && save.firstChild.nodeType === Node.TEXT_NODE ? save.firstChild : null;
      var drawn = sheet.squareScoresDrawn;
      var back = state.filed[state.filed.length - 1];
      if (title) {
        title.textContent = back ? say("reopen", { number: back.number }) : drawn.title;
      }
      if (why) {
        why.textContent = back ? say("reopenWhy", { number: back.number, next: state.deal }) : drawn.why;
      }
      if (label && !back) {
        label.textContent = drawn.label;
      }
      if (saveText) {
        saveText.nodeValue = back ? undoText : drawn.save;
      }
    });
  }

  // Undo drawn as a question while a record waits on this deal: it asks nothing, and sends
  // the undo at once (queued as any write made offline is).
  document.addEventListener("click", function (event) {
    var summary = event.target.closest && event.target.closest(".undo-confirm--plain > summary");
    if (!summary || !queue.length) {
      return;
    }
    event.preventDefault();
    var form = summary.parentElement.querySelector("form");
    if (form && window.htmx) {
      window.htmx.trigger(form, "submit");
    }
  }, true);

  function syncedAt() {
    var when = new Date(document.documentElement.getAttribute("data-synced"));
    if (isNaN(when.getTime())) {
      return "";
    }
    function two(n) {
      return (n < 10 ? "0" : "") + n;
    }
    return two(when.getHours()) + ":" + two(when.getMinutes());
  }

  function paintBar() {
    var offline = !navigator.onLine;
    var refused = queue.length && queue[0].refused;
    document.documentElement.classList.toggle("is-offline", offline);
    bar.hidden = !(offline || queue.length);
    var time = syncedAt();
    var state = "";
    if (offline) {
      state = time ? say("offline", { time: time }) : say("offlinePlain");
    } else if (sending) {
      state = say("sending");
    }
    var count = queue.length ? say("waiting", { count: queue.length }) : "";
    if (count && state) {
      count = "· " + count;
    }
    bar.querySelector(".offline-bar__state").textContent = state;
    bar.querySelector(".offline-bar__count").textContent = count;
    // The standings and the deal history, kept as last seen, do not count what waits.
    var provisional = bar.querySelector(".offline-bar__provisional");
    provisional.hidden = !(queue.length && document.querySelector("#standings, ol.deals"));
    provisional.textContent = say("provisional");
    var panel = bar.querySelector(".offline-bar__refused");
    panel.hidden = !refused;
    // A refusal turns the whole bar red (DESIGN.md): yellow with a pink box in it read as
    // "offline, waiting" at a glance, and the queue had stopped.
    bar.classList.toggle("is-refused", Boolean(refused));
    if (refused) {
      var why = say("refused", { what: queue[0].label, why: refused.detail });
      if (queue.length > 1) {
        why += " " + say("behind", { count: queue.length - 1 });
      }
      bar.querySelector(".offline-bar__why").textContent = why;
    }
  }

  function paint() {
    paintBar();
    paintScreen();
    document.dispatchEvent(new CustomEvent("squarescores:painted"));
  }

  function refresh() {
    return readQueue().then(paint);
  }

  // --- Queueing what the screen sends ---------------------------------------------------

  function freshKey() {
    if (window.crypto && window.crypto.randomUUID) {
      return window.crypto.randomUUID();
    }
    return String(Date.now()) + Math.random().toString(16).slice(2);
  }

  function pairs(detail) {
    var form = detail.formData || detail.parameters;
    var out = [];
    if (form && typeof form.forEach === "function" && !Array.isArray(form)) {
      form.forEach(function (value, name) {
        out.push([name, String(value)]);
      });
    } else if (form) {
      Object.keys(form).forEach(function (name) {
        [].concat(form[name]).forEach(function (value) {
          out.push([name, String(value)]);
        });
      });
    }
    return out.filter(function (pair) {
      return pair[0] !== "csrfmiddlewaretoken";
    });
  }

  function field(fields, name) {
    var found = fields.filter(function (pair) {
      return pair[0] === name;
    })[0];
    return found ? found[1] : null;
  }

  // Who an instant win's sheet says won outright (the plan says what that files).
  function claimant(fields) {
    return field(fields, "type") === "instant_win" ? field(fields, "player") : null;
  }

  function kindOf(path) {
    var match = /\/(tap|undo|event)\/$/.exec(path.split("?")[0]);
    return match ? match[1] : null;
  }

  function sheetLabel(element, fields) {
    var sheet = element.closest("details");
    var title = sheet && sheet.querySelector("summary");
    var chosen = [];
    var form = element.closest("form");
    if (form) {
      form.querySelectorAll("input:checked").forEach(function (input) {
        var label = input.closest("label");
        if (label) {
          chosen.push(label.textContent.trim());
        }
      });
      form.querySelectorAll("select, input[type=number]").forEach(function (input) {
        if (input.value) {
          chosen.push(input.value);
        }
      });
    }
    var text = (title ? title.textContent.trim() : field(fields, "type")) || "";
    return chosen.length ? text + ": " + chosen.join(", ") : text;
  }

  // A write the screen is about to send, made into what waits: a fresh key, the deal by
  // the number it is on as the screen shows it.
  function queued(element, kind, fields) {
    var state = project();
    var entry = { scope: plan.scope, kind: kind, deal: state.deal, made: Date.now() };
    var sent = fields.filter(function (pair) {
      return (
        pair[0] !== "deal" && pair[0] !== "key" && pair[0] !== "reopen" &&
        pair[0] !== "undoes" && pair[0] !== "seen"
      );
    });
    if (kind === "tap") {
      var loser = field(fields, "loser");
      entry.tap = loser ? "L" + loser : String(field(fields, "player"));
      entry.label = nameOf(loser || field(fields, "player")) + " " + (plan.places[tapsOf(state.records).length] || "");
      // Who is out as this phone shows it, waiting taps included: the server refuses the
      // tap if another phone moved the deal on meanwhile, instead of placing it elsewhere.
      sent = sent.filter(function (pair) { return pair[0] !== "out_before"; });
      sent.push(["out_before", tapsOf(state.records).map(playerOf).join(",")]);
    } else if (kind === "undo") {
      var last = state.records[state.records.length - 1];
      if (!last && !state.filed.length) {
        return null; // nothing to take back on this phone's deal
      }
      if (!last) {
        sent.push(["reopen", "1"]); // the empty next deal reaches back into the filed one
      }
      // The record it means, as "deal:how many records it held", waiting ones included:
      // the server refuses the undo if that deal's last record is another one by then
      // (another phone tapped or filed it meanwhile), instead of taking back theirs.
      if (last) {
        entry.label = say("undo", { what: recordLabel(last, state.records) });
        sent.push(["undoes", state.deal + ":" + state.records.length]);
      } else {
        var filed = state.filed[state.filed.length - 1];
        entry.label = say("undoDeal", {
          number: filed.number,
          what: recordLabel(filed.records[filed.records.length - 1], filed.records),
        });
        sent.push(["undoes", filed.number + ":" + filed.records.length]);
      }
    } else {
      // How many records the deal held as this phone showed it: the same entry recorded
      // since by another phone is refused, not counted twice.
      sent.push(["seen", String(state.records.length)]);
      entry.label = sheetLabel(element, fields);
      entry.instant = claimant(fields);
    }
    entry.key = freshKey();
    sent.push(["key", entry.key]);
    entry.fields = sent;
    entry.url = plan.deals + entry.deal + "/" + kind + "/";
    return entry;
  }

  function enqueue(entry) {
    return store("queue", "readwrite", function (entries) {
      return entries.add(entry);
    }).then(function () {
      askForSync();
      return refresh();
    });
  }

  function askForSync() {
    if (navigator.serviceWorker && navigator.serviceWorker.ready) {
      navigator.serviceWorker.ready.then(function (registration) {
        if (registration.sync) {
          return registration.sync.register(SYNC_TAG);
        }
      }).catch(function () {});
    }
  }

  function writeOf(event) {
    var detail = event.detail || {};
    var element = detail.elt;
    if (!plan || !element || !element.closest || !element.closest("#tap-screen")) {
      return null;
    }
    var verb = (detail.verb || (detail.requestConfig && detail.requestConfig.verb) || "").toLowerCase();
    var path = detail.path || (detail.requestConfig && detail.requestConfig.path) || "";
    var kind = kindOf(path);
    return verb === "post" && kind ? { element: element, kind: kind, path: path } : null;
  }

  document.addEventListener("htmx:configRequest", function (event) {
    var write = writeOf(event);
    if (!write) {
      return;
    }
    var fields = pairs(event.detail);
    write.element.squareScoresWrite = { path: write.path, fields: fields, kind: write.kind };
    if (navigator.onLine && !queue.length && !sending) {
      return; // sent now, as always
    }
    event.preventDefault();
    var key = field(fields, "key");
    if (queue.some(function (entry) { return entry.key === key; })) {
      kick(0); // the same form again: it already waits; send now
      return;
    }
    var entry = queued(write.element, write.kind, fields);
    var sheet = write.element.closest("details");
    if (sheet) {
      sheet.open = false;
    }
    if (write.kind === "tap") {
      // Got to Get In marks go with one tap, as a fresh screen would have them cleared.
      document.querySelectorAll("#tap-screen .not-played input:checked").forEach(function (box) {
        box.checked = false;
      });
    }
    if (entry) {
      enqueue(entry).then(function () {
        kick(0);
      });
    } else {
      note(say("undoLater"));
    }
  });

  // A word for a moment (what was not done, and why), until the next change.
  function note(text) {
    var line = bar.querySelector(".offline-bar__note");
    line.textContent = text;
    line.hidden = false;
    bar.hidden = false;
    window.setTimeout(function () {
      line.hidden = true;
      paintBar();
    }, 6000);
  }

  // A write sent but never answered: it waits, as it was sent (same key, same address).
  function lost(event) {
    var detail = event.detail || {};
    var element = detail.elt;
    var write = element && element.squareScoresWrite;
    if (!write || !plan) {
      return;
    }
    if (event.type === "htmx:responseError" && detail.xhr && detail.xhr.status < 500) {
      return;
    }
    element.squareScoresWrite = null;
    var key = field(write.fields, "key");
    if (queue.some(function (entry) { return entry.key === key; })) {
      return;
    }
    var state = project();
    var entry = {
      scope: plan.scope,
      kind: write.kind,
      deal: state.deal,
      made: Date.now(),
      key: key,
      url: write.path,
      fields: write.fields,
      label: write.kind === "event" ? sheetLabel(element, write.fields) : "",
      instant: write.kind === "event" ? claimant(write.fields) : null,
    };
    if (write.kind === "tap") {
      var loser = field(write.fields, "loser");
      entry.tap = loser ? "L" + loser : String(field(write.fields, "player"));
      entry.label = nameOf(loser || field(write.fields, "player")) + " " + (plan.places[tapsOf(state.records).length] || "");
    } else if (write.kind === "undo") {
      entry.label = say("undo", { what: "" }).trim();
    }
    enqueue(entry).then(function () {
      element.classList.remove("is-failed"); // not failed: it waits, and goes by itself
      kick(wait());
    });
  }

  // Offline, a sheet's Save does not ask the server what it would move (it says "Save"):
  // the question could not be sent, and htmx logged an error for every chip tapped.
  document.addEventListener("htmx:beforeRequest", function (event) {
    var element = event.detail && event.detail.elt;
    if (!navigator.onLine && element && element.closest && element.closest(".sheet__save")) {
      event.preventDefault();
    }
  });

  document.addEventListener("htmx:sendError", lost);
  document.addEventListener("htmx:timeout", lost);
  document.addEventListener("htmx:responseError", lost);

  // --- Sending what waits: one loop ---------------------------------------------------------

  function csrfToken() {
    try {
      return JSON.parse(document.body.getAttribute("hx-headers") || "{}")["X-CSRFToken"] || "";
    } catch (error) {
      return "";
    }
  }

  function wait() {
    var most = Math.min(LONGEST_WAIT_MS, 1000 * Math.pow(2, attempt));
    attempt += 1;
    return most * (0.5 + Math.random() / 2);
  }

  function kick(delay) {
    if (timer) {
      window.clearTimeout(timer);
    }
    timer = window.setTimeout(send, delay || 0);
  }

  function busy(on) {
    sending = on;
    document.documentElement.classList.toggle("is-sending", on);
  }

  function send() {
    timer = null;
    if (sending || !navigator.onLine) {
      return;
    }
    busy(true);
    readQueue().then(function (waiting) {
      var entry = waiting[0];
      if (!entry || entry.refused) {
        busy(false);
        paint();
        return;
      }
      paint();
      var body = new URLSearchParams();
      entry.fields.forEach(function (pair) {
        body.append(pair[0], pair[1]);
      });
      return window.fetch(entry.url, {
        method: "POST",
        credentials: "same-origin",
        headers: { Accept: "application/json", "X-CSRFToken": csrfToken() },
        body: body,
      }).then(function (response) {
        if (response.ok && !response.redirected) { // redirected: to sign in, not saved
          return store("queue", "readwrite", function (entries) {
            return entries.delete(entry.id);
          }).then(function () {
            attempt = 0;
            busy(false);
            return readQueue().then(function (left) {
              if (left.length) {
                kick(0);
              } else {
                paint();
                showTheTruth();
              }
            });
          });
        }
        if (response.status >= 500 || response.status === 429) {
          throw new Error("retry");
        }
        return response.json().catch(function () {
          return { code: "refused", detail: say("lost") };
        }).then(function (answer) {
          if (answer.code === "csrf_failed") {
            // The page's token is out of date: nothing was saved, and the write waits
            // for the page to be loaded again (a fresh token), as the note asks.
            note(answer.detail || say("lost"));
            busy(false);
            paint();
            kick(wait());
            return;
          }
          entry.refused = { code: answer.code || "refused", detail: answer.detail || say("lost"), status: response.status };
          return store("queue", "readwrite", function (entries) {
            return entries.put(entry);
          }).then(function () {
            busy(false);
            showTheTruth();
          });
        });
      });
    }).catch(function () {
      busy(false);
      paint();
      kick(wait());
    });
  }

  // The server's truth, once nothing waits (or the queue stopped on a refusal).
  function showTheTruth() {
    var screen = document.getElementById("tap-screen");
    if (screen && plan && window.htmx) {
      window.htmx.ajax("GET", plan.scope, { target: "#tap-screen", swap: "outerHTML" });
      return;
    }
    var follower = document.querySelector("[data-live]");
    if (follower && window.htmx) {
      window.htmx.trigger(follower, "live");
    } else {
      paint();
    }
  }

  // --- Discard / Re-enter ---------------------------------------------------------------

  bar.addEventListener("click", function (event) {
    var choice = event.target.closest && event.target.closest("[data-queue]");
    if (!choice || !queue.length || !queue[0].refused) {
      return;
    }
    // Discard: drop the refused write, send the rest. Re-enter: drop it and what waits
    // behind it (the panel said how many), and show the deal as the server has it, to
    // record them again there.
    var dropped = choice.getAttribute("data-queue") === "discard" ? [queue[0]] : queue.slice();
    store("queue", "readwrite", function (entries) {
      dropped.forEach(function (entry) {
        entries.delete(entry.id);
      });
      return null;
    }).then(function () {
      attempt = 0;
      return readQueue();
    }).then(function (left) {
      if (left.length) {
        kick(0);
      } else {
        showTheTruth();
      }
      paint();
    });
  });

  // --- When to send, and the plan ---------------------------------------------------------

  function readPlan() {
    var data = document.getElementById("offline-plan");
    plan = null;
    if (data) {
      try {
        plan = JSON.parse(data.textContent);
      } catch (error) {
        plan = null;
      }
    }
    if (plan) {
      store("plans", "readwrite", function (plans) {
        return plans.put(plan);
      }).catch(function () {});
    }
  }

  window.addEventListener("online", function () {
    attempt = 0;
    paint();
    kick(Math.random() * 500); // phones at one table do not all send at the same instant
  });
  window.addEventListener("offline", paint);
  if (navigator.serviceWorker) {
    navigator.serviceWorker.addEventListener("message", function (event) {
      if (event.data && event.data.type === "sync") {
        kick(0);
      }
    });
  }
  document.addEventListener("htmx:afterSettle", function () {
    readPlan();
    refresh();
  });
  document.addEventListener("htmx:afterRequest", function (event) {
    if (event.detail && event.detail.successful) {
      document.documentElement.setAttribute("data-synced", new Date().toISOString());
    }
  });

  // Signing out: what this account's pages kept is forgotten, and what still waits is
  // not sent later in someone else's name (asked first).
  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!form.action || form.action.indexOf("/accounts/logout/") < 0 || form.squareScoresLeaving) {
      return;
    }
    event.preventDefault();
    store("queue", "readonly", function (entries) {
      return entries.getAll();
    }).then(function (all) {
      var mine = (all || []).filter(function (entry) {
        return entry.scope.indexOf("/sessions/") === 0;
      });
      if (mine.length && !window.confirm(say("signOut", { count: mine.length }))) {
        return false;
      }
      return store("queue", "readwrite", function (entries) {
        mine.forEach(function (entry) {
          entries.delete(entry.id);
        });
        return null;
      }).then(function () {
        return store("plans", "readwrite", function (plans) {
          return plans.clear();
        });
      }).then(function () {
        return true;
      });
    }).catch(function () {
      return true;
    }).then(function (leave) {
      if (leave) {
        if (window.SquareScoresWorker) {
          window.SquareScoresWorker.tell({ type: "forget" });
        }
        form.squareScoresLeaving = true;
        form.requestSubmit ? form.requestSubmit() : form.submit();
      }
    });
  }, true);

  window.SquareScoresOffline = { queue: function () { return queue; }, send: function () { kick(0); } };

  readPlan();
  refresh().then(function () {
    if (queue.length && navigator.onLine) {
      kick(0);
    }
  });
})();
