// Dashboard helpers: copy buttons, confirmations, one-time pages, and the
// column names of table cells (for the cards tables become on a phone).
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

  // On a phone a table is a stack of cards (dashboard.css): each cell shows its
  // column's name, copied here from the header into data-label (a cell that
  // has one of its own keeps it; a cell spanning columns gets none).
  function labelCells() {
    document.querySelectorAll("table.table").forEach(function (table) {
      if (!table.tHead || !table.tHead.rows.length) return;
      var names = [];
      Array.prototype.forEach.call(table.tHead.rows[0].cells, function (head) {
        for (var i = 0; i < head.colSpan; i++) names.push(head.textContent.trim());
      });
      Array.prototype.forEach.call(table.tBodies, function (body) {
        Array.prototype.forEach.call(body.rows, function (row) {
          var column = 0;
          Array.prototype.forEach.call(row.cells, function (cell) {
            if (cell.colSpan === 1 && names[column] && !cell.hasAttribute("data-label")) {
              cell.setAttribute("data-label", names[column]);
            }
            column += cell.colSpan;
          });
        });
      });
    });
  }
  labelCells();

  // A page waiting on something that happens elsewhere (a bank transfer
  // landing) checks again every data-check-every seconds: it fetches itself
  // and reloads only when what it waits on changed (the element is gone, or
  // its data-status is another), so nothing moves under a reader while nothing
  // happened. Not a <meta http-equiv="refresh">: that reloads the page under
  // whoever is reading it, a timing a person cannot turn off (WCAG 2.2.1).
  // Without JavaScript the page's "check again" link does it by hand.
  document.querySelectorAll("[data-check-every]").forEach(function (element) {
    var seconds = parseInt(element.dataset.checkEvery, 10);
    if (!(seconds > 0) || !window.fetch || !window.DOMParser) return;
    function later() { window.setTimeout(check, seconds * 1000); }
    function check() {
      window.fetch(window.location.href, { cache: "no-store", credentials: "same-origin" })
        .then(function (response) {
          // A busy (429) or failed answer says nothing about the payment.
          if (!response.ok) { later(); return; }
          return response.text().then(function (html) {
            var now = new DOMParser().parseFromString(html, "text/html")
              .querySelector("[data-check-every]");
            if (now && now.dataset.status === element.dataset.status) later();
            else window.location.reload();
          });
        })
        .catch(later);
    }
    later();
  });

  document.addEventListener("click", function (event) {
    var button = event.target.closest("[data-confirm]");
    if (button && !window.confirm(button.dataset.confirm)) {
      event.preventDefault();
    }
  });
})();
