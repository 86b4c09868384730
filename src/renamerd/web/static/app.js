// renamerd web app: small progressive enhancements. Every page works without this file.
"use strict";

(function () {
  // Try it: the result comes below the form; take the focus there (and so into view, on a
  // phone too) once the page with it has loaded
  var result = document.getElementById("result");
  if (result) { result.focus(); }

  // Copy buttons: <button data-copy="ELEMENT-ID">Copy</button>
  function setUpCopyButtons(root) {
    root.querySelectorAll("button[data-copy]").forEach(function (button) {
      button.hidden = false;
      button.addEventListener("click", function () {
        var source = document.getElementById(button.getAttribute("data-copy"));
        if (!source) { return; }
        var text = source.textContent.trim();
        var done = function () {
          var label = button.textContent;
          button.textContent = "Copied";
          var status = document.getElementById(button.getAttribute("data-status") || "");
          if (status) { status.textContent = "Copied to the clipboard."; }
          setTimeout(function () { button.textContent = label; }, 2000);
        };
        if (navigator.clipboard && window.isSecureContext) {
          navigator.clipboard.writeText(text).then(done, function () { selectText(source); });
        } else {
          selectText(source);
        }
      });
    });
  }

  function selectText(element) {
    var range = document.createRange();
    range.selectNodeContents(element);
    var selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
  }

  // Live lists: <tbody data-live="/jobs/live?..." data-interval="3"> is refreshed from a small
  // JSON answer {version, rows, total, banner} without reloading the page. Rows are replaced
  // only when the version changed, and not while a button in the list has the focus.
  function setUpLiveList(body) {
    var url = body.getAttribute("data-live");
    var every = Math.max(1, parseFloat(body.getAttribute("data-interval") || "3")) * 1000;
    var version = body.getAttribute("data-version") || "";
    var status = document.getElementById(body.getAttribute("data-status") || "");
    var empty = document.getElementById(body.getAttribute("data-empty") || "");
    var banner = document.getElementById(body.getAttribute("data-banner") || "");
    var timer = null;

    function schedule() { timer = setTimeout(tick, every); }

    function tick() {
      if (document.hidden) { schedule(); return; }
      fetch(url, { headers: { "Accept": "application/json" }, credentials: "same-origin" })
        .then(function (response) {
          if (response.status === 401) { window.location.assign("/signin?ended=1"); return null; }
          return response.ok ? response.json() : null;
        })
        .then(function (data) {
          if (data && data.version !== version && !body.contains(document.activeElement)) {
            version = data.version;
            body.innerHTML = data.rows;
            if (empty) { empty.hidden = data.total > 0; }
            if (banner) {
              banner.hidden = !data.banner;
              banner.textContent = data.banner || "";
            }
            if (status) {
              status.textContent = "Updated " + new Date().toLocaleTimeString() + ": " +
                data.total + " document" + (data.total === 1 ? "" : "s") + ".";
            }
          }
        })
        .catch(function () { /* offline for a moment: try again at the next tick */ })
        .then(schedule);
    }
    schedule();
  }

  // Folder browser: <button data-browse="INPUT-ID" data-url="/connections/NAME/folders">
  // lists the folders of the path typed in the input; a click on one goes into it.
  function setUpBrowser(button) {
    var input = document.getElementById(button.getAttribute("data-browse"));
    var list = document.createElement("ul");
    list.className = "folders";
    list.setAttribute("aria-live", "polite");
    button.parentNode.appendChild(list);
    function item(label, path) {
      var li = document.createElement("li");
      var choose = document.createElement("button");
      choose.type = "button";
      choose.className = "small";
      choose.textContent = label;
      choose.addEventListener("click", function () { input.value = path; show(path); });
      li.appendChild(choose);
      list.appendChild(li);
    }
    function show(path) {
      list.textContent = "";
      fetch(button.getAttribute("data-url") + "?path=" + encodeURIComponent(path || "/"),
            {headers: {"Accept": "application/json"}, credentials: "same-origin"})
        .then(function (r) { return r.json().then(function (body) { return [r.ok, body]; }); })
        .then(function (answer) {
          var body = answer[1];
          if (!answer[0]) { list.textContent = body.error || "The folders could not be listed."; return; }
          var here = body.path.replace(/\/+$/, "");
          if (here) { item("↑ up", here.slice(0, here.lastIndexOf("/")) || "/"); }
          body.folders.forEach(function (name) { item(name, here + "/" + name); });
          if (!body.folders.length) { list.appendChild(document.createTextNode("No folders in " + (here || "/") + ".")); }
        })
        .catch(function () { list.textContent = "The folders could not be listed."; });
    }
    button.hidden = false;
    button.addEventListener("click", function () { show(input.value); });
  }

  // A file input with data-max-bytes: a file over it is refused before it is sent
  function setUpSizeCheck(input) {
    var max = parseInt(input.getAttribute("data-max-bytes"), 10);
    input.addEventListener("change", function () {
      var file = input.files && input.files[0];
      var over = file && max && file.size > max;
      input.setCustomValidity(over ? "This document is too large: " +
        input.getAttribute("data-max-words") + "." : "");
      if (over) { input.reportValidity(); }
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    setUpCopyButtons(document);
    document.querySelectorAll("input[data-max-bytes]").forEach(setUpSizeCheck);
    document.querySelectorAll("[data-live]").forEach(setUpLiveList);
    document.querySelectorAll("button[data-browse]").forEach(setUpBrowser);
  });
})();
