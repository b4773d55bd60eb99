// Dashboard helpers: copy buttons, confirmations, and one-time pages.
"use strict";

(function () {
  // A page that shows a secret once answers a POST. Swap its address for the
  // plain GET one, so reloading fetches the page again (without the secret)
  // instead of posting the form a second time.
  var replaceUrl = document.body.dataset.replaceUrl;
  if (replaceUrl && window.history.replaceState) {
    window.history.replaceState(null, "", replaceUrl);
  }

  function flash(button, label) {
    var original = button.dataset.label || button.textContent;
    button.dataset.label = original;
    button.textContent = label;
    window.setTimeout(function () { button.textContent = original; }, 2500);
  }

  function copyBySelection(element) {
    var range = document.createRange();
    range.selectNodeContents(element);
    var selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
    try {
      return document.execCommand("copy");
    } catch (error) {
      return false;
    }
  }

  document.addEventListener("click", function (event) {
    var button = event.target.closest("[data-copy-target]");
    if (!button) return;
    var element = document.querySelector(button.dataset.copyTarget);
    if (!element) return;
    var text = element.textContent.trim();
    // The clipboard API needs a secure context (https or localhost); fall back
    // to selecting the text and the older copy command.
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(
        function () { flash(button, "Copied"); },
        function () { flash(button, copyBySelection(element) ? "Copied" : "Press Ctrl+C"); }
      );
    } else {
      flash(button, copyBySelection(element) ? "Copied" : "Press Ctrl+C");
    }
  });

  // A table wider than its box scrolls sideways (on a phone): say so above it,
  // and keep the hint in step when the window changes size.
  function markScrollingTables() {
    document.querySelectorAll("table.table").forEach(function (table) {
      var scrolls = table.scrollWidth > table.clientWidth + 1;
      table.dataset.scrolls = scrolls ? "true" : "false";
      var hint = table.previousElementSibling;
      if (!hint || !hint.classList.contains("scroll-hint")) {
        if (!scrolls) return;
        hint = document.createElement("p");
        hint.className = "scroll-hint";
        hint.textContent = "Scroll the table sideways to see every column \u2192";
        table.parentNode.insertBefore(hint, table);
      }
      hint.hidden = !scrolls;
    });
  }
  markScrollingTables();
  window.addEventListener("resize", markScrollingTables);

  document.addEventListener("click", function (event) {
    var button = event.target.closest("[data-confirm]");
    if (button && !window.confirm(button.dataset.confirm)) {
      event.preventDefault();
    }
  });
})();
