// Draws the calculator's Plotly charts from the JSON the server embeds next to each plot,
// on first load and after every htmx swap of the results.
(function () {
  function draw(root) {
    if (!window.Plotly) return;
    root.querySelectorAll("[data-chart]").forEach(function (el) {
      var data = document.getElementById("chart-" + el.dataset.chart);
      if (!data) return;
      var figure = JSON.parse(data.textContent);
      Plotly.newPlot(el, figure.data, figure.layout, {responsive: true, displaylogo: false});
      el.dataset.drawn = "true";
    });
  }
  document.addEventListener("DOMContentLoaded", function () { draw(document); });
  document.addEventListener("htmx:afterSettle", function (event) { draw(document); });
})();
