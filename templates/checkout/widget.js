/* Installments checkout widget. Embed with
     <script src="https://<service>/widget.js"></script>
   then call InstallmentsCheckout.open({sessionToken, mode, onSuccess, onClose}).

   It opens the hosted checkout (/checkout/<token>) in a popup (default, the
   supported mode) or an iframe over the page (on a page of another site than the
   service's, the iframe asks the customer to continue in a window of its own)
   and reports, through postMessage from the checkout's own origin only, sent
   only to a page on the merchant's registered site (the origin of its
   business_url: scheme, host and port):
     onSuccess({sessionToken, planId})  the deposit was paid
     onClose()                          the customer closed the checkout
   Display only: fulfil orders on the signed webhooks (goods.release or
   payment.success), never on onSuccess. */
(function () {
  "use strict";
  if (window.InstallmentsCheckout) return;

  var script = document.currentScript;
  var origin = new URL(script ? script.src : window.location.href).origin;
  var SOURCE = "installments-checkout";

  function noop() {}

  function open(options) {
    options = options || {};
    var token = String(options.sessionToken || "");
    if (!/^fcs_[0-9A-Za-z]+$/.test(token)) {
      throw new Error("InstallmentsCheckout.open needs the session_token (fcs_...) your server created.");
    }
    var onSuccess = options.onSuccess || noop;
    var onClose = options.onClose || noop;
    var url = origin + "/checkout/" + encodeURIComponent(token);
    var target = null;
    var overlay = null;
    var timer = null;
    var closed = false;

    function finish() {
      if (closed) return;
      closed = true;
      window.removeEventListener("message", onMessage);
      if (timer) window.clearInterval(timer);
      if (overlay && overlay.parentNode) overlay.parentNode.removeChild(overlay);
      if (options.mode !== "iframe" && target && !target.closed) target.close();
      onClose();
    }

    function onMessage(event) {
      if (event.origin !== origin || !target || event.source !== target) return;
      var data = event.data || {};
      if (data.source !== SOURCE || data.sessionToken !== token) return;
      if (data.type === "success") {
        onSuccess({ sessionToken: token, planId: data.planId });
      } else if (data.type === "close") {
        finish();
      }
    }
    window.addEventListener("message", onMessage);

    if (options.mode === "iframe") {
      overlay = document.createElement("div");
      overlay.setAttribute("role", "dialog");
      overlay.setAttribute("aria-label", "Checkout");
      overlay.style.cssText = "position:fixed;inset:0;z-index:2147483647;background:rgba(16,24,40,.55);display:flex;align-items:center;justify-content:center;padding:1rem;";
      var frame = document.createElement("iframe");
      frame.src = url;
      frame.title = "Checkout";
      frame.style.cssText = "width:100%;max-width:46rem;height:100%;max-height:52rem;border:0;border-radius:10px;background:#fff;";
      var close = document.createElement("button");
      close.type = "button";
      close.textContent = "\u00d7";
      close.setAttribute("aria-label", "Close checkout");
      close.style.cssText = "position:absolute;top:.5rem;right:.75rem;font-size:2rem;line-height:1;background:none;border:0;color:#fff;cursor:pointer;";
      close.addEventListener("click", finish);
      overlay.appendChild(frame);
      overlay.appendChild(close);
      document.body.appendChild(overlay);
      target = frame.contentWindow;
    } else {
      target = window.open(url, "installments-checkout", "width=520,height=760");
      if (!target) {
        window.location.href = url;  // popups blocked: go there instead
        return { close: noop };
      }
      timer = window.setInterval(function () {
        if (target.closed) finish();
      }, 400);
    }
    return { close: finish };
  }

  window.InstallmentsCheckout = { open: open };
})();
