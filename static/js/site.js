// Behaviour shared by every page, kept out of the HTML so that the Content-Security-Policy
// can forbid inline scripts and event handlers.
(function () {
  document.addEventListener("change", function (event) {
    var target = event.target;
    if (target instanceof HTMLSelectElement && target.hasAttribute("data-submit-on-change")) {
      // The calculator's inputs as they are now (edits change the URL, and a field may
      // not have been sent yet): the page in the other language keeps them.
      var calculator = document.getElementById("calculator-form");
      var next = target.form.elements.next;
      if (calculator && next) {
        var params = new URLSearchParams(new FormData(calculator));
        var charts = new URLSearchParams(window.location.search).get("charts");
        if (charts) params.set("charts", charts);  // not a form field: the chart option
        var query = params.toString();
        next.value = calculator.getAttribute("action") + (query ? "?" + query : "");
      }
      target.form.submit();
    }
  });
  // The line editor: Escape puts the row's fields (or a field marked data-escape-resets)
  // back to the saved values; Enter saves through the row's form (plain HTML).
  document.addEventListener("keydown", function (event) {
    if (event.key !== "Escape") {
      return;
    }
    var target = event.target;
    if (!(target instanceof HTMLInputElement || target instanceof HTMLSelectElement)) {
      return;
    }
    var row = target.closest("[data-line-row]");
    var fields = row ? row.querySelectorAll("input, select") : target.hasAttribute("data-escape-resets") ? [target] : [];
    fields.forEach(function (field) {
      if (field instanceof HTMLSelectElement) {
        Array.prototype.forEach.call(field.options, function (option) {
          option.selected = option.defaultSelected;
        });
      } else if (field.type !== "hidden") {
        field.value = field.defaultValue;
      }
    });
    if (fields.length) {
      event.preventDefault();
    }
  });
  // The buyer's proposal page (/quotes/p/<token>/): it counts as viewed on the buyer's
  // first touch, click, key or scroll, not when the link is fetched (mail scanners
  // fetch every link in an email). quotes.views.buyer_viewed records it.
  if (/^\/quotes\/p\/[^/]+\/$/.test(window.location.pathname)) {
    var kinds = ["pointerdown", "keydown", "scroll", "touchstart"];
    var viewed = function () {
      kinds.forEach(function (kind) {
        window.removeEventListener(kind, viewed, true);
      });
      fetch(window.location.pathname + "viewed/", {
        method: "POST",
        credentials: "same-origin",
        keepalive: true,
      });
    };
    kinds.forEach(function (kind) {
      window.addEventListener(kind, viewed, { capture: true, passive: true });
    });
  }
})();
