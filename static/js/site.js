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
  // Public forms carry a small proof-of-work challenge (common/challenge.py): the page
  // finds the proof while the visitor types (the smallest n for which
  // SHA-256("<challenge>:<n>") begins with the challenge's number of zero bits), so that
  // a request past its network's share goes through unnoticed. A send before the proof
  // is ready waits for it (htmx's confirm event).
  var BATCH = 256;
  var proofs = new WeakMap(); // form -> promise of the proof of its current challenge
  var zeroBits = function (bytes) {
    var bits = 0;
    for (var i = 0; i < bytes.length; i++) {
      if (bytes[i] === 0) {
        bits += 8;
        continue;
      }
      return bits + Math.clz32(bytes[i]) - 24;
    }
    return bits;
  };
  var findProof = async function (challenge, bits) {
    var encoder = new TextEncoder();
    for (var start = 0; ; start += BATCH) {
      var batch = [];
      for (var n = start; n < start + BATCH; n++) {
        batch.push(crypto.subtle.digest("SHA-256", encoder.encode(challenge + ":" + n)));
      }
      var digests = await Promise.all(batch);
      for (var i = 0; i < digests.length; i++) {
        if (zeroBits(new Uint8Array(digests[i])) >= bits) {
          return String(start + i);
        }
      }
    }
  };
  var solveChallenges = function () {
    if (!window.crypto || !crypto.subtle) {
      return; // not a secure context: the server asks again, the visitor sends again
    }
    document.querySelectorAll("input[data-challenge-bits]").forEach(function (input) {
      var form = input.form;
      if (!form || !form.elements.proof || input.dataset.solving === input.value) {
        return;
      }
      var challenge = input.value;
      input.dataset.solving = challenge;
      form.elements.proof.value = "";
      var found = findProof(challenge, Number(input.dataset.challengeBits)).then(function (proof) {
        if (form.elements.challenge.value === challenge) {
          form.elements.proof.value = proof;
        }
      });
      proofs.set(form, found);
    });
  };
  document.addEventListener("DOMContentLoaded", solveChallenges);
  document.addEventListener("htmx:load", solveChallenges);
  document.addEventListener("htmx:oobAfterSwap", solveChallenges);
  document.addEventListener("htmx:confirm", function (event) {
    var form = event.target instanceof HTMLFormElement ? event.target : null;
    if (!form || !form.elements.proof || form.elements.proof.value || !proofs.has(form)) {
      return;
    }
    event.preventDefault();
    proofs.get(form).then(function () {
      event.detail.issueRequest(true);
    });
  });
})();
