// Starts ReDoc on /api/redoc/ (kept out of the page so that no inline script runs).
"use strict";

(function () {
  var container = document.getElementById("redoc-container");
  if (!container || !window.Redoc) return;
  window.Redoc.init(
    container.dataset.specUrl,
    { hideDownloadButton: false, expandResponses: "200,201" },
    container
  );
})();
