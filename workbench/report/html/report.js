// The workbench HTML report: draws the embedded data (#report-data). Every text from the data goes in with
// textContent (the one markup string, the trend chart, is made of numbers only); nothing is fetched. The row
// list is virtual: only the rows in view (and a few around them) are in the DOM, so 10,000 rows open and
// filter at once.
(function () {
  "use strict";
  var DATA = JSON.parse(document.getElementById("report-data").textContent);
  var ROW_H = 28, OVERSCAN = 12, JSON_LINES = 3000;
  var rows = DATA.rows || [];
  var state = { failing: false, set: "", tag: "", q: "", selected: -1 };
  var visible = rows.slice();
  var haystack = rows.map(function (r) {
    return [r.name, r.set, r.id, r.verdict, (r.tags || []).join(" "), r.flip || "", r.flaky ? "flaky" : "",
            r.rescored ? "re-scored" : ""].join("\n").toLowerCase();
  });

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }
  function add(parent) {
    for (var i = 1; i < arguments.length; i++) if (arguments[i]) parent.appendChild(arguments[i]);
    return parent;
  }
  function ms(value) {
    if (value === null || value === undefined) return "";
    return value >= 1000 ? (value / 1000).toFixed(value >= 10000 ? 0 : 1) + "s" : Math.round(value) + "ms";
  }
  function failing(row) { return row.verdict !== "PASS"; }

  // -- the summary -------------------------------------------------------------------------------
  function card(title, cls) { var c = el("div", "card" + (cls ? " " + cls : "")); add(c, el("h3", "", title)); return c; }
  function list(items, cls) {
    var ul = el("ul", cls || "");
    items.forEach(function (text) { add(ul, el("li", "", text)); });
    return ul;
  }

  function summary() {
    var s = DATA.summary, box = el("section", ""), gate = DATA.gate || {};
    box.id = "summary";
    var rowsCard = card("Rows passing");
    add(rowsCard, el("div", "big", s.rows.passed + " / " + s.rows.total));
    if (s.previous) {
      var delta = s.rows.passed - s.previous.rows_passed;
      add(rowsCard, el("div", delta > 0 ? "delta-up" : (delta < 0 ? "delta-down" : "muted"),
        (delta > 0 ? "+" : "") + (delta || "=") + " vs iteration " + s.previous.number + " (" +
        s.previous.rows_passed + " / " + s.previous.rows_total + (s.previous.partial ? ", partial" : "") + ")"));
    } else {
      add(rowsCard, el("div", "muted", "no earlier iteration"));
    }
    var res = card("Results"), r = s.results;
    add(res, el("div", "big", r.passed + " passed"));
    add(res, el("div", r.failed ? "bad" : "muted", r.failed + " failed"), el("div", r.errors ? "warn" : "muted", r.errors + " errors"));
    var g = card("Gate");
    if (!gate.judged) {
      add(g, el("div", "big muted", "—"), el("div", "muted", gate.note || "not judged"));
    } else {
      add(g, el("div", "big " + (gate.passed ? "ok" : "bad"), gate.passed ? "passed" : "failed"));
      add(g, el("div", "muted", "pass rate " + (gate.pass_rate * 100).toFixed(1) + "%"));
      if (gate.reasons.length) add(g, list(gate.reasons, "bad"));
      if (gate.warnings.length) add(g, list(gate.warnings, "warn"));
      if (gate.lines.length) add(g, list(gate.lines, "muted"));
    }
    var b = card("Baseline");
    if (gate.baseline) {
      var regs = gate.baseline.regressions;
      add(b, el("div", "big " + (regs.length ? "bad" : "ok"), regs.length ? regs.length + " regressed" : "no regression"));
      add(b, el("div", "muted", (gate.baseline.path || "") + (gate.baseline.total !== undefined ?
        ": " + gate.baseline.passed + " / " + gate.baseline.total + " results passed there, " + s.results.passed +
        " / " + s.results.total + " now" : "")));
      if (regs.length) add(b, list(regs));
    } else {
      add(b, el("div", "big muted", "—"), el("div", "muted", "no baseline compared"));
    }
    var t = card("Trend: rows passing", "wide");
    add(t, trend());
    var f = card("Flips", "wide"), flips = DATA.flips;
    if (!flips) {
      add(f, el("div", "muted", "nothing to compare with"));
    } else {
      add(f, el("div", "muted", "since iteration " + flips.previous));
      if (flips.newly_failing.length) add(f, el("div", "bad", flips.newly_failing.length + " newly failing"), list(flips.newly_failing));
      if (flips.newly_passing.length) add(f, el("div", "ok", flips.newly_passing.length + " newly passing"), list(flips.newly_passing));
      if (!flips.newly_failing.length && !flips.newly_passing.length) add(f, el("div", "muted", "no row changed verdict"));
    }
    add(box, rowsCard, res, g, b, t, f);
    if (s.problems.length) {
      var p = card("Problems", "wide");
      add(p, list(s.problems.map(function (x) { return x.severity + ": " + x.file + ": " + x.message; }), "warn"));
      add(box, p);
    }
    return box;
  }

  function trend() {
    // numbers only go into this markup (the HTML parser makes it SVG: no namespace to name)
    var points = (DATA.trend || []).filter(function (p) { return !p.partial && p.total > 0; });
    if (points.length < 2) return el("div", "muted", points.length ? "one full iteration so far" : "no history");
    var W = 360, H = 64, pad = 4, n = points.length, cur = DATA.summary.number;
    var xy = points.map(function (p, i) {
      return [pad + i * (W - 2 * pad) / (n - 1), H - pad - (p.passed / p.total) * (H - 2 * pad)];
    });
    var path = xy.map(function (c, i) { return (i ? "L" : "M") + c[0].toFixed(1) + " " + c[1].toFixed(1); }).join(" ");
    var parts = ['<svg class="trend" width="100%" height="' + H + '" viewBox="0 0 ' + W + " " + H + '" role="img">',
      '<line class="axis" x1="' + pad + '" x2="' + (W - pad) + '" y1="' + (H - pad) + '" y2="' + (H - pad) + '"></line>',
      '<path class="area" d="' + path + " L" + xy[n - 1][0].toFixed(1) + " " + (H - pad) + " L" + pad + " " + (H - pad) + ' Z"></path>',
      '<path class="line" d="' + path + '"></path>'];
    points.forEach(function (p, i) {
      var down = i > 0 && p.passed < points[i - 1].passed, up = i > 0 && p.passed > points[i - 1].passed;
      var n0 = Number(p.n), passed = Number(p.passed), total = Number(p.total);
      parts.push('<circle class="pt' + (down ? " down" : "") + (n0 === cur ? " cur" : "") + '" cx="' + xy[i][0].toFixed(1) +
        '" cy="' + xy[i][1].toFixed(1) + '" r="' + (down || up || n0 === cur ? 3.5 : 2) + '"><title>iteration ' + n0 + ": " +
        passed + " / " + total + " rows passing</title></circle>");
    });
    parts.push("</svg>");
    var wrap = el("div", ""), chart = el("div", "");
    chart.innerHTML = parts.join("");
    var first = points[0], last = points[n - 1];
    add(wrap, chart, el("div", "legend", "iterations " + first.n + "–" + last.n + ": " + first.passed + " → " + last.passed +
      " of " + last.total + " rows passing; red dots lost rows"));
    return wrap;
  }

  // -- the toolbar and the filters ---------------------------------------------------------------
  var ui = {};

  function option(select, value, text) { var o = el("option", "", text); o.value = value; select.appendChild(o); }

  function toolbar() {
    var bar = el("div", "");
    bar.id = "toolbar";
    var label = el("label", "");
    ui.failing = el("input", "");
    ui.failing.type = "checkbox";
    ui.failing.id = "failing-only";
    add(label, ui.failing, document.createTextNode(" failing only"));
    ui.set = el("select", "");
    ui.set.id = "set-filter";
    option(ui.set, "", "every set");
    (DATA.sets || []).forEach(function (s) { option(ui.set, s, s); });
    ui.tag = el("select", "");
    ui.tag.id = "tag-filter";
    option(ui.tag, "", "every tag");
    (DATA.tags || []).forEach(function (s) { option(ui.tag, s, s); });
    if (!(DATA.tags || []).length) ui.tag.disabled = true;
    ui.q = el("input", "");
    ui.q.type = "search";
    ui.q.id = "search";
    ui.q.placeholder = "search rows (/)";
    ui.count = el("span", "muted");
    ui.count.id = "shown-count";
    var keys = el("span", "keys");
    [["j", "k", "next / previous"], ["n", "", "next failing"], ["/", "", "search"]].forEach(function (k) {
      add(keys, el("kbd", "", k[0]));
      if (k[1]) add(keys, el("kbd", "", k[1]));
      add(keys, document.createTextNode(" " + k[2] + "  "));
    });
    add(bar, label, ui.set, ui.tag, ui.q, ui.count, keys);
    ui.failing.addEventListener("change", function () { state.failing = ui.failing.checked; refilter(true); });
    ui.set.addEventListener("change", function () { state.set = ui.set.value; refilter(true); });
    ui.tag.addEventListener("change", function () { state.tag = ui.tag.value; refilter(true); });
    ui.q.addEventListener("input", function () { state.q = ui.q.value; refilter(true); });
    return bar;
  }

  function readHash() {
    var hash = location.hash.replace(/^#/, "");
    hash.split("&").forEach(function (part) {
      if (!part) return;
      var i = part.indexOf("="), key = decodeURIComponent(i < 0 ? part : part.slice(0, i));
      var value = i < 0 ? "" : decodeURIComponent(part.slice(i + 1).replace(/\+/g, " "));
      if (key === "failing") state.failing = value !== "0";
      else if (key === "set") state.set = value;
      else if (key === "tag") state.tag = value;
      else if (key === "q") state.q = value;
      else if (key === "row") state.selected = parseInt(value, 10);
    });
    ui.failing.checked = state.failing;
    ui.set.value = state.set;
    ui.tag.value = state.tag;
    ui.q.value = state.q;
  }

  function writeHash() {
    var parts = [];
    if (state.failing) parts.push("failing");
    if (state.set) parts.push("set=" + encodeURIComponent(state.set));
    if (state.tag) parts.push("tag=" + encodeURIComponent(state.tag));
    if (state.q) parts.push("q=" + encodeURIComponent(state.q));
    if (state.selected >= 0) parts.push("row=" + state.selected);
    try { history.replaceState(null, "", "#" + parts.join("&")); } catch (e) { /* a sandboxed file: URL */ }
  }

  function refilter(save) {
    var q = state.q.trim().toLowerCase();
    visible = [];
    for (var i = 0; i < rows.length; i++) {
      var r = rows[i];
      if (state.failing && !failing(r)) continue;
      if (state.set && r.set !== state.set) continue;
      if (state.tag && (r.tags || []).indexOf(state.tag) < 0) continue;
      if (q && haystack[i].indexOf(q) < 0) continue;
      visible.push(r);
    }
    ui.count.textContent = "showing " + visible.length + " of " + rows.length + " rows";
    ui.spacer.style.height = (visible.length * ROW_H) + "px";
    ui.list.setAttribute("data-shown", String(visible.length));
    ui.empty.style.display = visible.length ? "none" : "block";
    drawRows();
    if (save) writeHash();
  }

  // -- the virtual row list ----------------------------------------------------------------------
  function rowNode(r, position) {
    var node = el("div", "row" + (r.i === state.selected ? " selected" : ""));
    node.setAttribute("data-i", String(r.i));
    node.setAttribute("data-verdict", r.verdict);
    node.setAttribute("role", "option");
    node.style.top = (position * ROW_H) + "px";
    var marks = el("span", "marks");
    if (r.rescored) add(marks, el("span", "mark", "re-scored")).lastChild.title = "re-scored from a recorded run";
    if (r.flaky) add(marks, el("span", "mark flaky", "flaky")).lastChild.title = "flaky: " + r.flaky;
    if (r.flip === "newly failing") add(marks, el("span", "mark flip-down", "▼ new"));
    if (r.flip === "newly passing") add(marks, el("span", "mark flip-up", "▲ fixed"));
    add(node, el("span", "badge " + r.verdict, r.verdict), el("span", "set", r.set), el("span", "name", r.name), marks,
        el("span", "ms", ms(r.ms)));
    node.title = r.set + " › " + r.name;
    return node;
  }

  function drawRows() {
    var height = ui.list.clientHeight || 600;
    var first = Math.max(0, Math.floor(ui.list.scrollTop / ROW_H) - OVERSCAN);
    var last = Math.min(visible.length, Math.ceil((ui.list.scrollTop + height) / ROW_H) + OVERSCAN);
    var frag = document.createDocumentFragment();
    for (var p = first; p < last; p++) frag.appendChild(rowNode(visible[p], p));
    ui.spacer.textContent = "";
    ui.spacer.appendChild(frag);
  }

  var pending = false;
  function onScroll() {
    if (pending) return;
    pending = true;
    requestAnimationFrame(function () { pending = false; drawRows(); });
  }

  function position(index) {
    for (var p = 0; p < visible.length; p++) if (visible[p].i === index) return p;
    return -1;
  }

  function select(index, scroll) {
    state.selected = index;
    var p = position(index);
    if (scroll && p >= 0) {
      var top = p * ROW_H, view = ui.list.clientHeight;
      if (top < ui.list.scrollTop) ui.list.scrollTop = top;
      else if (top + ROW_H > ui.list.scrollTop + view) ui.list.scrollTop = top + ROW_H - view;
    }
    drawRows();
    showDetail(index >= 0 ? rows[index] : null);
    writeHash();
  }

  function move(step, onlyFailing) {
    if (!visible.length) return;
    var p = position(state.selected), n = visible.length;
    for (var tries = 0; tries < n; tries++) {
      p = p < 0 ? (step > 0 ? 0 : n - 1) : (p + step + n) % n;
      if (!onlyFailing || failing(visible[p])) { select(visible[p].i, true); return; }
    }
  }

  // -- a row's detail ----------------------------------------------------------------------------
  function startsWith(path, prefix) {
    if (prefix.length > path.length) return false;
    for (var i = 0; i < prefix.length; i++) if (String(path[i]) !== String(prefix[i])) return false;
    return true;
  }

  function jsonView(value, differ, selected) {
    var pre = el("pre", "json"), count = 0, more = 0;
    differ = differ || [];
    function marks(path) {
      var cls = "l";
      for (var i = 0; i < differ.length; i++) if (startsWith(path, differ[i])) { cls += " diff"; break; }
      if (selected) {
        var kept = false;
        for (var j = 0; j < selected.length; j++) {
          if (startsWith(path, selected[j]) || startsWith(selected[j], path)) { kept = true; break; }
        }
        if (!kept) cls += " dim";
      }
      return cls;
    }
    function line(indent, key, text, cls, path, comma) {
      if (count >= JSON_LINES) { more++; return; }
      count++;
      var span = el("span", marks(path));
      span.appendChild(document.createTextNode(new Array(indent + 1).join("  ")));
      if (key !== null) { add(span, el("span", "k", JSON.stringify(key))); span.appendChild(document.createTextNode(": ")); }
      add(span, el("span", cls, text));
      if (comma) span.appendChild(document.createTextNode(","));
      pre.appendChild(span);
    }
    function walk(v, path, indent, key, comma) {
      if (v !== null && typeof v === "object") {
        var isList = Array.isArray(v), keys = isList ? null : Object.keys(v), size = isList ? v.length : keys.length;
        if (!size) { line(indent, key, isList ? "[]" : "{}", "", path, comma); return; }
        line(indent, key, isList ? "[" : "{", "", path, false);
        for (var i = 0; i < size; i++) {
          var k = isList ? i : keys[i];
          walk(v[k], path.concat([k]), indent + 1, isList ? null : k, i < size - 1);
        }
        line(indent, null, isList ? "]" : "}", "", path, comma);
      } else {
        var cls = typeof v === "string" ? "s" : (typeof v === "number" ? "n" : "");
        line(indent, key, JSON.stringify(v), cls, path, comma);
      }
    }
    walk(value, [], 0, null, false);
    if (more) add(pre, el("span", "l muted", "… " + more + " more lines"));
    return pre;
  }

  function blockTitle(box, title) { if (title) add(box, el("h4", "", title)); }

  var BLOCKS = {
    sides: function (b) {
      var box = el("div", "block"), grid = el("div", "sides");
      [b.left, b.right].forEach(function (side) {
        var col = el("div", "side");
        blockTitle(col, side.title);
        add(col, side.value === null || side.value === undefined ? el("pre", "tone-dim", "(none)") : jsonView(side.value, b.differ, b.selected));
        add(grid, col);
      });
      add(box, grid);
      if ((b.differ && b.differ.length) || b.selected) {
        var legend = el("div", "legend");
        if (b.differ && b.differ.length) { add(legend, el("span", "sw diff")); legend.appendChild(document.createTextNode("differs (" + b.differ.length + ")")); }
        if (b.selected) { add(legend, el("span", "sw dim")); legend.appendChild(document.createTextNode("not compared (targetOutputKey)")); }
        add(box, legend);
      }
      return box;
    },
    json: function (b) {
      if (b.collapsed) {  // shown on demand: what the blocks above already say, in full
        var d = el("details", "block");
        add(d, el("summary", "", b.title), jsonView(b.value, [], null));
        return d;
      }
      var box = el("div", "block"); blockTitle(box, b.title); add(box, jsonView(b.value, [], null)); return box;
    },
    text: function (b) { var box = el("div", "block"); blockTitle(box, b.title); add(box, el("pre", b.tone ? "tone-" + b.tone : "", b.text)); return box; },
    transcript: function (b) {
      var box = el("div", "block transcript");
      blockTitle(box, b.title);
      (b.turns || []).forEach(function (turn) {
        var t = el("div", "turn" + (turn.failed ? " failed" : ""));
        var h = el("h5", "", turn.title);
        if (turn.time_ms !== null && turn.time_ms !== undefined) add(h, el("span", "muted", ms(turn.time_ms)));
        add(t, h);
        (turn.lines || []).forEach(function (l) {
          var line = el("div", "tline who-" + l.who);
          add(line, el("span", "who", l.who), el("span", "", l.text));
          add(t, line);
        });
        if (turn.note) add(t, el("div", "note", turn.note));
        (turn.marks || []).forEach(function (m) {
          add(t, el("div", "amark " + (m.ok === true ? "a-ok" : (m.ok === false ? "a-bad" : "a-unk")), m.text));
        });
        add(box, t);
      });
      return box;
    },
    steps: function (b) {
      var box = el("div", "block");
      blockTitle(box, b.title);
      var table = el("table", "steps"), head = el("tr", "");
      add(head, el("th", "", ""));
      (b.head || []).forEach(function (h) { add(head, el("th", "", h)); });
      add(table, head);
      if (!(b.items || []).length) add(table, add(el("tr", "tone-dim"), el("td", "m", ""), el("td", "", "(none)")));
      (b.items || []).forEach(function (item) {
        var tr = el("tr", "tone-" + (item.tone || ""));
        add(tr, el("td", "m", item.mark));
        item.cells.forEach(function (c) { add(tr, el("td", "", c)); });
        add(table, tr);
        if (item.note) {
          var note = el("tr", "note"), td = el("td", "", item.note);
          td.colSpan = item.cells.length;
          add(table, add(note, el("td", "", ""), td));
        }
      });
      add(box, table);
      return box;
    }
  };

  function block(b) {
    var draw = BLOCKS[b.kind];
    if (draw) return draw(b);
    var box = el("div", "block");
    add(box, el("pre", "", JSON.stringify(b, null, 2)));
    return box;
  }

  function traceView(result) {
    var d = el("details", "");
    add(d, el("summary", "", "Trace (" + result.trace_count + " events" + (result.trace_count > result.trace.length ? ", first " + result.trace.length + " shown" : "") + ")"));
    add(d, el("pre", "", result.trace.map(function (e) { return JSON.stringify(e); }).join("\n")));
    return d;
  }

  function logView(text) {
    var d = el("details", "");
    add(d, el("summary", "", "Log (" + text.split("\n").length + " lines)"));
    add(d, el("pre", "", text));
    return d;
  }

  function showDetail(row) {
    var box = ui.detail;
    box.textContent = "";
    if (!row) { add(box, el("div", "placeholder", "Pick a row (click, or j / k / n) to see its detail.")); return; }
    add(box, el("h2", "", row.name));
    var sub = el("div", "sub");
    add(sub, el("span", "badge " + row.verdict, row.verdict));
    sub.appendChild(document.createTextNode("  " + row.set + " · id " + row.id + " · " + ms(row.ms)));
    if ((row.tags || []).length) sub.appendChild(document.createTextNode(" · tags " + row.tags.join(", ")));
    if (row.rescored) add(sub, el("span", "mark", "re-scored"));
    if (row.flaky) add(sub, el("span", "mark flaky", "flaky " + row.flaky));
    if (row.flip) add(sub, el("span", "mark " + (row.flip === "newly failing" ? "flip-down" : "flip-up"), row.flip));
    add(box, sub);
    var logs = row.results.map(function (r) { return r.log; });
    var oneLog = logs.every(function (l) { return l === logs[0]; });
    var shownBlocks = {};  // a block the row's earlier result already showed (its inputs) is not repeated
    var ordered = row.results.filter(failing).concat(row.results.filter(function (r) { return !failing(r); }));
    ordered.forEach(function (r) {
      var sec = el("div", "result"), head = el("div", "rhead"), body = el("div", "rbody");
      add(head, el("span", "badge " + r.verdict, r.verdict));
      head.appendChild(document.createTextNode("  " + r.evaluator + (r.type ? " (" + r.type + ")" : "") +
        " · score " + Number(r.score).toFixed(2) + " · " + ms(r.ms) + (r.samples ? " · " + r.samples + " samples passed" : "")));
      if (r.sample_verdicts) {  // [runner] repeat: each sample's verdict, in the order they ran
        var samples = el("div", "legend", "samples: ");
        r.sample_verdicts.forEach(function (v) { add(samples, el("span", v === "PASS" ? "ok" : "bad", v === "PASS" ? "✔" : "✘")); });
        add(body, samples);
      }
      if (r.verdict !== "PASS" && r.detail) add(body, el("pre", r.verdict === "FAIL" ? "tone-fail" : "tone-error", r.detail));
      r.blocks.forEach(function (b) {
        var key = b.kind === "json" ? JSON.stringify(b) : null;
        if (key !== null && shownBlocks[key]) { add(body, el("div", "legend", b.title + ": as above")); return; }
        if (key !== null) shownBlocks[key] = true;
        add(body, block(b));
      });
      if (r.trace.length) add(body, traceView(r));
      if (r.log && !oneLog) add(body, logView(r.log));
      add(sec, head, body);
      add(box, sec);
    });
    if (oneLog && logs[0]) add(box, logView(logs[0]));
  }

  // -- keys --------------------------------------------------------------------------------------
  function onKey(event) {
    var typing = /^(INPUT|SELECT|TEXTAREA)$/.test((event.target || {}).tagName || "");
    if (event.key === "Escape" && typing) { event.target.blur(); ui.list.focus(); return; }
    if (typing || event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.key === "j") move(1, false);
    else if (event.key === "k") move(-1, false);
    else if (event.key === "n") move(1, true);
    else if (event.key === "/") { event.preventDefault(); ui.q.focus(); ui.q.select(); }
    else return;
    event.preventDefault();
  }

  // -- the page ----------------------------------------------------------------------------------
  function settingsView() {
    var d = el("details", "");
    d.id = "settings";
    add(d, el("summary", "", "Settings (secrets redacted)"));
    add(d, el("pre", "", JSON.stringify(DATA.settings, null, 2)));
    return d;
  }

  function start() {
    var app = document.getElementById("app"), s = DATA.summary;
    var header = el("header", "");
    add(header, el("h1", "", "workbench · " + DATA.project),
        el("span", "meta", (s.number ? "iteration " + s.number : "not recorded") + (s.partial ? " (partial)" : "") +
          " · " + s.trigger + " · " + new Date(s.started_at).toLocaleString() + " · " + s.duration_s.toFixed(1) + "s"));
    var main = el("div", "");
    main.id = "main";
    ui.list = el("div", "");
    ui.list.id = "list";
    ui.list.tabIndex = 0;
    ui.list.setAttribute("role", "listbox");
    ui.spacer = el("div", "");
    ui.spacer.id = "spacer";
    ui.empty = el("div", "empty", "No row matches the filters.");
    add(ui.list, ui.empty, ui.spacer);
    ui.detail = el("div", "");
    ui.detail.id = "detail";
    add(main, ui.list, ui.detail);
    add(app, header, summary(), toolbar(), main, settingsView());
    ui.list.addEventListener("scroll", onScroll, { passive: true });
    ui.list.addEventListener("click", function (event) {
      var node = event.target.closest ? event.target.closest(".row") : null;
      if (node) select(parseInt(node.getAttribute("data-i"), 10), false);
    });
    window.addEventListener("resize", onScroll);
    document.addEventListener("keydown", onKey);
    window.addEventListener("hashchange", function () { readHash(); refilter(false); select(state.selected, true); });
    readHash();
    refilter(false);
    if (!(state.selected >= 0 && state.selected < rows.length)) {  // open on the first failing row shown
      var first = visible.filter(failing)[0] || visible[0];
      state.selected = first ? first.i : -1;
    }
    if (state.selected >= 0) select(state.selected, true);
    else showDetail(null);
    document.documentElement.setAttribute("data-rendered-ms", String(Math.round(performance.now())));
  }

  start();
})();
