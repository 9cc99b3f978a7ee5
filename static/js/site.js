// Behaviour shared by every page, kept out of the HTML so that the Content-Security-Policy
// can forbid inline scripts and event handlers.
(function () {
  document.addEventListener("change", function (event) {
    var target = event.target;
    if (target instanceof HTMLSelectElement && target.hasAttribute("data-submit-on-change")) {
      target.form.submit();
    }
  });
})();
