// Draws the calculator's Plotly charts from the JSON the server embeds next to each plot,
// on first load and after every htmx swap of the results.
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
  function draw(root) {
    if (!window.Plotly) return;
    root.querySelectorAll("[data-chart]").forEach(function (el) {
      var data = document.getElementById("chart-" + el.dataset.chart);
      if (!data) return;
      var figure = JSON.parse(data.textContent);
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
      Plotly.newPlot(el, figure.data, figure.layout, {
        responsive: true, displaylogo: false, displayModeBar: narrow ? false : "hover"
      });
      el.dataset.drawn = "true";
    });
  }
  // Show only the fields that matter for the chosen workload and demand pattern; the
  // server ignores the others, so hiding them loses nothing.
  var TRAINING = ["pretrain", "full_finetune", "lora", "qlora"];
  function relevant() {
    var kind = document.getElementById("id_kind");
    var pattern = document.getElementById("id_demand_pattern");
    if (!kind || !pattern) return;
    var family = TRAINING.indexOf(kind.value) >= 0 ? "training" : "inference";
    document.querySelectorAll("[data-show-kind]").forEach(function (el) {
      el.hidden = el.dataset.showKind !== family;
    });
    document.querySelectorAll("[data-show-pattern]").forEach(function (el) {
      el.hidden = el.dataset.showPattern !== pattern.value;
    });
  }
  document.addEventListener("change", function (event) {
    if (event.target.id === "id_kind" || event.target.id === "id_demand_pattern") relevant();
  });
  document.addEventListener("DOMContentLoaded", relevant);
  document.addEventListener("DOMContentLoaded", function () { draw(document); });
  document.addEventListener("htmx:afterSettle", function (event) { draw(document); });
})();
