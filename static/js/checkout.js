// Hosted checkout: the live plan preview, widget messages, framed behaviour.
"use strict";

(function () {
  var SOURCE = "installments-checkout";
  var embedder = window.opener || (window.parent !== window ? window.parent : null);
  var framed = window.parent !== window;
  var body = document.body;

  // Messages go only to the merchant's registered site (the origin of its business
  // URL, rendered by the server) and to this service's own pages (the frame that
  // relays a window's messages, the widget demo), never to "*": whichever page
  // opened or framed the checkout, only those two origins can read them. The
  // browser drops a message whose target origin is not the recipient's.
  var targets = [window.location.origin];
  if (body.dataset.merchantOrigin && body.dataset.merchantOrigin !== window.location.origin) {
    targets.push(body.dataset.merchantOrigin);
  }

  function post(recipient, message) {
    targets.forEach(function (origin) { recipient.postMessage(message, origin); });
  }

  function tell(message) {
    if (embedder) post(embedder, Object.assign({ source: SOURCE }, message));
  }

  // A step that fails says so, at the top of the page, instead of leaving the
  // customer on a page that does nothing (issue 25).
  var main = document.getElementById("main") || body;
  function stepFailed(message) {
    var box = document.querySelector("[data-step-error]");
    if (!box) {
      box = document.createElement("div");
      box.className = "form-errors";
      box.setAttribute("role", "alert");
      box.dataset.stepError = "";
      box.dataset.testid = "step-error";
      main.prepend(box);
    }
    box.textContent = "";
    var p = document.createElement("p");
    p.textContent = message;
    box.append(p);
    box.scrollIntoView({ block: "nearest" });
    // The step may be tried again: undo "Paying…".
    var pay = document.getElementById("pay-button");
    if (pay && pay.dataset.label) {
      pay.textContent = pay.dataset.label;
      pay.disabled = false;
      delete pay.dataset.label;
    }
  }

  // A form whose answer sends the browser to a site this page may not send it to
  // (the Content-Security-Policy's form-action: e.g. a card page on another
  // address than the one the checkout was opened at) is refused by the browser
  // without a word: say so.
  document.addEventListener("securitypolicyviolation", function (event) {
    var directive = event.effectiveDirective || event.violatedDirective || "";
    if (directive.indexOf("form-action") !== 0) return;
    // (The browser names the form's own address here, not where its answer
    // pointed: that stays unsaid.)
    stepFailed(
      "Your browser refused to open the next page: it is at another address than " +
      "this one. Nothing was charged. Try again; if it happens again, tell the shop."
    );
    if (window.console) {
      window.console.error(
        "A form's answer sent the browser away from " + window.location.origin +
        " and the page's form-action refused it: is the service's BASE_URL the " +
        "address this checkout was opened at?"
      );
    }
  });

  // Paid: tell the widget; its "Continue" closes the widget instead.
  if (body.dataset.checkoutSuccess) {
    tell({ type: "success", sessionToken: body.dataset.checkoutSuccess, planId: body.dataset.planId });
    var done = document.querySelector("[data-widget-close]");
    if (done && embedder) {
      done.addEventListener("click", function (event) {
        event.preventDefault();
        tell({ type: "close", sessionToken: body.dataset.checkoutSuccess });
        if (window.opener) window.close();
      });
    }
  }

  // In the widget's iframe, the processor's pages refuse to be framed: the
  // steps that leave this page open in a new tab instead.
  if (framed) {
    document.querySelectorAll("[data-leaves-frame]").forEach(function (element) {
      element.setAttribute("target", "_blank");
    });
    document.querySelectorAll(".framed-only").forEach(function (element) {
      element.hidden = false;
    });
  }

  // Framed by a page on another site, the checkout cannot sign the customer in
  // (no SameSite=Lax cookie reaches it there): it opens in a window of its own,
  // and this frame passes that window's messages on to the widget.
  var opener = document.querySelector("[data-open-window]");
  if (opener && framed) {
    opener.addEventListener("click", function (event) {
      var child = window.open(opener.href, "installments-checkout", "width=520,height=760");
      if (!child) return;  // blocked: the link opens a tab instead (no messages)
      event.preventDefault();
      var watch = window.setInterval(function () {
        if (!child.closed) return;
        window.clearInterval(watch);
        post(window.parent, { source: SOURCE, type: "close", sessionToken: opener.dataset.sessionToken });
      }, 400);
      window.addEventListener("message", function (message) {
        var data = message.data || {};
        if (message.source !== child || message.origin !== window.location.origin) return;
        if (data.source !== SOURCE) return;
        post(window.parent, data);
      });
    });
  }

  // The deposit by transfer or USSD: while the customer pays, ask for the page
  // again every few seconds; once it no longer waits (paid: it redirects to
  // the plan; ended: it says so), show that page. Not a meta refresh: a page
  // that reloads itself on a timer takes a screen reader back to its top
  // (WCAG 2.2.1). Without script, "I have paid: check now" does the same.
  var depositWait = document.querySelector("[data-deposit-poll]");
  if (depositWait) {
    var pollUrl = depositWait.dataset.pollUrl;
    var seconds = parseInt(depositWait.dataset.depositPoll, 10) || 15;
    document.querySelectorAll("[data-deposit-auto]").forEach(function (note) {
      note.hidden = false;
    });
    var polling = window.setInterval(function () {
      fetch(pollUrl, { credentials: "same-origin" })
        .then(function (response) {
          if (response.redirected) return response.url;
          return response.text().then(function (html) {
            return html.indexOf("data-deposit-poll") === -1 ? pollUrl : null;
          });
        })
        .then(function (next) {
          if (!next) return;
          window.clearInterval(polling);
          window.location.assign(next);
        }, function () { /* offline for a moment: the next tick asks again */ });
    }, seconds * 1000);
  }

  // The live preview of the plan.
  var form = document.getElementById("pay-form");
  if (!form) return;
  var preview = document.getElementById("preview");
  var button = document.getElementById("pay-button");
  var keyFacts = document.getElementById("key-facts");
  var consent = document.getElementById("terms_accepted");
  var hasMethod = form.querySelector('input[name="payment_method_id"]') !== null;
  var latest = 0;

  function render(data) {
    preview.textContent = "";
    var today = document.createElement("p");
    today.className = "preview-today";
    today.append("Today: ");
    var strong = document.createElement("strong");
    strong.dataset.testid = "preview-deposit";
    strong.textContent = data.deposit;
    today.append(strong, " deposit");
    var list = document.createElement("ol");
    list.className = "preview-list";
    list.dataset.testid = "preview-installments";
    data.installments.forEach(function (item) {
      var row = document.createElement("li");
      var due = document.createElement("span");
      due.textContent = item.due;
      var amount = document.createElement("span");
      amount.textContent = item.display;
      row.append(due, amount);
      list.append(row);
    });
    preview.append(today, list);
    // The key facts as the server renders them (escaped there): the box shows
    // exactly what the plan will be. Parsed, never run: no script in it runs.
    if (keyFacts && data.key_facts_html) {
      var parsed = new DOMParser().parseFromString(data.key_facts_html, "text/html");
      keyFacts.replaceChildren.apply(keyFacts, Array.from(parsed.body.childNodes));
    }
    button.textContent = data.pay_label;
    button.disabled = !hasMethod;
  }

  function problem(message) {
    preview.textContent = "";
    var p = document.createElement("p");
    p.className = "preview-error";
    p.setAttribute("role", "alert");
    p.textContent = message;
    preview.append(p);
    if (keyFacts) keyFacts.textContent = "Choose a plan to see its key facts.";
    button.disabled = true;
  }

  function refresh() {
    var query = new URLSearchParams();
    form.querySelectorAll("[data-preview-input]").forEach(function (input) {
      query.set(input.name, input.value);
    });
    var ticket = ++latest;
    preview.setAttribute("aria-busy", "true");
    fetch(form.dataset.previewUrl + "?" + query.toString(), { credentials: "same-origin" })
      .then(function (response) {
        // The service's refusals are JSON with a message; anything else that is
        // not a success (a proxy's error page, a 500) says what came back.
        return response.json().catch(function () { return null; }).then(function (answer) {
          if (answer && (answer.ok || (answer.error && answer.error.message))) return answer;
          return { ok: false, error: { message: (
            "The plan could not be worked out (the server answered " + response.status +
            "). Nothing was charged. Try again in a moment."
          ) } };
        });
      }, function () {
        return { ok: false, error: { message: (
          "The plan could not be worked out: the service did not answer. " +
          "Check your connection and try again. Nothing was charged."
        ) } };
      })
      .then(function (answer) {
        if (ticket !== latest) return;  // a newer choice is on its way
        if (answer.ok) render(answer.data);
        else problem(answer.error.message);
      })
      .finally(function () {
        if (ticket === latest) preview.removeAttribute("aria-busy");
      });
  }

  // The payday applies to monthly plans only: hidden otherwise (and ignored).
  var schedule = document.getElementById("schedule_type");
  function showPayday() {
    var monthly = !schedule || schedule.value === "monthly";
    form.querySelectorAll("[data-monthly-only]").forEach(function (field) {
      field.hidden = !monthly;
    });
  }

  form.querySelectorAll("[data-preview-input]").forEach(function (input) {
    input.addEventListener("change", function () {
      showPayday();
      // The customer agreed to the plan they saw: another one asks again.
      if (consent) consent.checked = false;
      refresh();
    });
  });

  // One click pays once: the button is disabled while the payment is sent.
  form.addEventListener("submit", function () {
    window.setTimeout(function () {
      button.dataset.label = button.textContent;
      button.disabled = true;
      button.textContent = "Paying…";
    }, 0);
  });
  // Back to this page from the browser's history: the button works again.
  window.addEventListener("pageshow", function (event) {
    if (event.persisted && button.dataset.label) {
      button.textContent = button.dataset.label;
      button.disabled = false;
      delete button.dataset.label;
    }
  });
})();
