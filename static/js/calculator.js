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
  document.addEventListener("DOMContentLoaded", function () { draw(document); });
  document.addEventListener("htmx:afterSettle", function (event) { draw(document); });
})();
