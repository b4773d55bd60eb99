// The widget demo page: open the hosted checkout with the token typed in, and
// log what the widget reports.
"use strict";

(function () {
  var log = document.getElementById("event-log");
  function write(line) { log.textContent += line + "\n"; }
  document.querySelectorAll("[data-open]").forEach(function (button) {
    button.addEventListener("click", function () {
      var token = document.getElementById("session_token").value.trim();
      if (!token) { write("Enter a session token first."); return; }
      write("open " + button.dataset.open);
      window.InstallmentsCheckout.open({
        sessionToken: token,
        mode: button.dataset.open,
        onSuccess: function (result) { write("onSuccess " + JSON.stringify(result)); },
        onClose: function () { write("onClose"); }
      });
    });
  });
})();
