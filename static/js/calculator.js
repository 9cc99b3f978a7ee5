// Draws the calculator's Plotly charts from the JSON the server embeds in the results,
// on first load and after every htmx swap of the results; the first chart is already on
// the page as the server drew it (SVG), and Plotly takes it over.
(function () {
  // Plotly does not wrap titles: on a phone, break long ones between words.
  function wrap(text, width) {
    var lines = [], line = "";
    text.split(" ").forEach(function (word) {
      if (line && (line + " " + word).length > width) { lines.push(line); line = word; }
      else { line = line ? line + " " + word : word; }
    });
    if (line) lines.push(line);
    return lines.join("<br>");
  }
  // The figures come in one JSON document (#chart-data: {name: {data, layout}}). The
  // first chart is drawn at once; the others one at a time when the browser is idle (or as
  // soon as they scroll into view), so the first chart never waits for the other five.
  function idle(fn) {
    if (window.requestIdleCallback) window.requestIdleCallback(fn, {timeout: 250});
    else setTimeout(fn, 1);
  }
  function plot(el, figure) {
    // On a phone the mode bar would cover the title, and the legend needs a smaller font.
    var narrow = window.matchMedia("(max-width: 640px)").matches;
    if (narrow) {
      figure.layout.legend = Object.assign({}, figure.layout.legend, {font: {size: 10}});
      var title = figure.layout.title;
      if (title && title.text) title.text = wrap(title.text, 34);
      // Arrow labels (crossovers, break-evens) do not fit a phone-sized plot; the
      // markers and their hover text say the same.
      if (figure.layout.annotations) {
        figure.layout.annotations = figure.layout.annotations.filter(function (a) {
          return a.showarrow === false;
        });
      }
    }
    // The first chart comes drawn by the server (an <svg> child, in the first paint):
    // Plotly draws over it in the same box, and the server's drawing goes once Plotly's is
    // there (in the same task: no frame without a chart, no change of layout).
    var served = el.querySelector(":scope > svg");
    return Plotly.newPlot(el, figure.data, figure.layout, {
      responsive: true, displaylogo: false, displayModeBar: narrow ? false : "hover"
    }).then(function () {
      if (served) served.remove();
      el.dataset.drawn = "true";
      if (!performance.getEntriesByName("first-chart-plotly").length) {
        performance.mark("first-chart-plotly");
      }
    });
  }
  // After the browser has painted what is on the page now (the verdict, the served chart):
  // a chart's drawing then never holds up that paint.
  function afterPaint(fn) {
    if (window.requestAnimationFrame) requestAnimationFrame(function () { setTimeout(fn, 0); });
    else setTimeout(fn, 0);
  }
  var generation = 0;
  // The charts are drawn once per result: only a new #chart-data starts a drawing (htmx
  // swaps and settles once for every element: the results and each out-of-band slot).
  var drawnSource = null;
  function draw(root) {
    if (!window.Plotly) return;
    var source = root.querySelector("#chart-data");
    if (!source || source === drawnSource) return;
    drawnSource = source;
    var mine = ++generation;  // an htmx swap starts over; older queues stop
    afterPaint(function () { if (mine === generation) drawCharts(root, source, mine); });
  }
  function drawCharts(root, source, mine) {
    var figures = JSON.parse(source.textContent);
    var pending = Array.prototype.filter.call(
      root.querySelectorAll("[data-chart]"), function (el) { return figures[el.dataset.chart]; }
    );
    var observer = null;
    function next() {
      if (mine !== generation || !pending.length) {
        if (observer) observer.disconnect();
        return;
      }
      var el = pending.shift();
      if (observer) observer.unobserve(el);
      var later = function () { idle(next); };
      plot(el, figures[el.dataset.chart]).then(later, later);
    }
    if ("IntersectionObserver" in window) {
      observer = new IntersectionObserver(function (entries) {
        entries.forEach(function (entry) {
          var at = pending.indexOf(entry.target);
          if (entry.isIntersecting && at > 0) {  // visible: draw it next
            pending.splice(at, 1);
            pending.unshift(entry.target);
          }
        });
      });
      pending.slice(1).forEach(function (el) { observer.observe(el); });
    }
    next();
  }
  // Show only the fields that matter for the chosen workload and demand pattern; the
  // server ignores the others, so hiding them loses nothing.
  var TRAINING = ["pretrain", "full_finetune", "lora", "qlora"];
  function relevant() {
    var kind = document.getElementById("id_kind");
    var pattern = document.getElementById("id_demand_pattern");
    if (!kind || !pattern) return;
    var load = document.getElementById("id_serving_load");
    var family = TRAINING.indexOf(kind.value) >= 0 ? "training" : "inference";
    // A field is shown when every rule it carries holds; the load rule (users and
    // requests, or tokens/s) applies to serving only.
    document.querySelectorAll("[data-show-kind], [data-show-pattern], [data-show-load]")
      .forEach(function (el) {
        var d = el.dataset;
        var hide = Boolean((d.showKind && d.showKind !== family) ||
          (d.showPattern && d.showPattern !== pattern.value) ||
          (d.showLoad && family === "inference" && load && d.showLoad !== load.value));
        if (el.hidden !== hide) el.hidden = hide;
      });
  }
  // Each workload's own defaults (tco.web.presets.KIND_DEFAULTS, on the form): changing the
  // workload replaces a value that is still the previous workload's default (or empty),
  // and keeps what the visitor typed.
  function applyDefaults(kind) {
    var form = document.getElementById("calculator-form");
    if (!form || !form.dataset.kindDefaults) return;
    var defaults = JSON.parse(form.dataset.kindDefaults);
    var before = defaults[form.dataset.kind] || {}, after = defaults[kind] || {};
    Object.keys(after).forEach(function (name) {
      var field = form.elements[name];
      if (!field) return;
      if (field.value === "" || String(before[name]) === field.value) field.value = after[name];
    });
    form.dataset.kind = kind;
  }
  // Listened to while the event comes down (capture), so the new workload's defaults are
  // in the fields before the form's own listener (htmx, on the way up) reads them for
  // the request: the result is always for the inputs shown, never the previous workload's.
  document.addEventListener("change", function (event) {
    var id = event.target.id;
    if (id === "id_kind") applyDefaults(event.target.value);
    if (id === "id_kind" || id === "id_demand_pattern" || id === "id_serving_load") relevant();
  }, true);
  // A field refused: its message is where the field is, so open the section it is in.
  function showErrors() {
    document.querySelectorAll(".field-error span").forEach(function (error) {
      var section = error.closest("details");
      if (section && !section.open) section.open = true;
    });
  }
  // The summary bar shows the verdict while its headline is out of view (on a phone the
  // form comes first), and takes the reader to it. The headline, not the whole verdict
  // box: the box's site, time and risk sentences can keep it on screen long after the
  // headline has scrolled away.
  var watcher = null;
  function watchVerdict() {
    var verdict = document.querySelector("#verdict .verdict-headline") ||
      document.getElementById("verdict");
    var bar = document.getElementById("verdict-bar");
    if (watcher) watcher.disconnect();
    if (!verdict || !bar || !("IntersectionObserver" in window)) return;
    watcher = new IntersectionObserver(function (entries) {
      var seen = entries[entries.length - 1].isIntersecting;
      bar.classList.toggle("verdict-in-view", seen);
      bar.classList.toggle("verdict-out-of-view", !seen);
    });
    watcher.observe(verdict);
  }
  // Plotly (data-plotly on this script's tag; preloaded) runs after the first paint, so
  // the verdict and the server-drawn chart never wait for it; the charts are drawn once
  // it has run.
  var plotlySrc = document.currentScript && document.currentScript.dataset.plotly;
  function loadPlotly() {
    if (window.Plotly || !plotlySrc) { draw(document); return; }
    var script = document.createElement("script");
    script.src = plotlySrc;
    script.onload = function () { draw(document); };
    document.head.appendChild(script);
  }
  function ready() {
    var form = document.getElementById("calculator-form");
    if (form) answered = formQuery(form);  // the page's result is for the form as it came
    relevant(); watchVerdict(); afterPaint(loadPlotly);
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", ready);
  else ready();
  // The form is sent at once on each change (no debounce: a change event comes once per
  // edit). The same inputs as the result on the page are not sent again: leaving a field
  // whose edit was already sent may fire a second change, and the result, its charts
  // included, would be drawn twice for nothing.
  function formQuery(form) { return new URLSearchParams(new FormData(form)).toString(); }
  var answered = null;
  document.addEventListener("htmx:beforeRequest", function (event) {
    var form = event.detail.elt;
    if (!form || form.id !== "calculator-form") return;
    var query = formQuery(form);
    if (query === answered) { event.preventDefault(); return; }
    event.detail.xhr.calculatorQuery = query;
    holdActions(true);
  });
  document.addEventListener("htmx:afterRequest", function (event) {
    var query = event.detail.xhr && event.detail.xhr.calculatorQuery;
    if (query !== undefined && event.detail.successful) answered = query;
    if (query !== undefined) holdActions(false);
  });
  // While the answer to an edit is on its way, the PDF, workbook and quote actions on the
  // page are still the previous inputs': they cannot be used until the new ones arrive
  // (a refused edit gives them back, and the stale banner then hides them).
  function holdActions(hold) {
    var actions = document.querySelector("#results .quote-actions");
    if (actions) actions.inert = hold;
  }
  // A new answer to the form: the error slots are emptied first, and the response fills
  // those of the fields it refuses (out of band; it carries no others). A refused edit
  // keeps the previous result (HX-Reswap: none), its charts included.
  document.addEventListener("htmx:beforeSwap", function (event) {
    if (!event.detail.target || event.detail.target.id !== "results") return;
    document.querySelectorAll("#calculator-form .field-error").forEach(function (slot) {
      if (slot.firstChild) slot.replaceChildren();
    });
  });
  // Old results leaving the page: Plotly lets go of each chart (its listeners and its
  // few thousand nodes, which htmx would otherwise walk one event each).
  document.addEventListener("htmx:beforeCleanupElement", function (event) {
    var el = event.target;
    if (window.Plotly && el.dataset && el.dataset.chart !== undefined && el.dataset.drawn) {
      Plotly.purge(el);
      el.replaceChildren();
    }
  });
  // New results: their charts are drawn from the swap on (after the next paint), not
  // from htmx's settling, which comes later.
  document.addEventListener("htmx:afterSwap", function () { draw(document); });
  document.addEventListener("htmx:afterSettle", function (event) {
    draw(document);
    showErrors();
    if (event.detail.elt && event.detail.elt.id === "results") watchVerdict();
  });
})();
