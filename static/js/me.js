// Progressive enhancement only: every form works without this file (SPEC W-5).
(function () {
  "use strict";
  // The language switch submits as soon as a language is picked with the pointer. From the keyboard the
  // arrow keys change the value as they move through the options, so there the button submits (WCAG 3.2.2).
  document.querySelectorAll("form[data-autosubmit] select").forEach(function (select) {
    var byKeyboard = false;
    select.addEventListener("keydown", function () { byKeyboard = true; });
    select.addEventListener("pointerdown", function () { byKeyboard = false; });
    select.addEventListener("change", function () { if (!byKeyboard) { select.form.submit(); } });
  });
  // Times are rendered in UTC; show them in the reader's own time zone.
  var lang = document.documentElement.lang || undefined;
  document.querySelectorAll("time[datetime]").forEach(function (node) {
    var moment = new Date(node.getAttribute("datetime"));
    if (isNaN(moment)) { return; }
    node.title = node.textContent;
    node.textContent = moment.toLocaleString(lang, { dateStyle: "medium", timeStyle: "short" });
  });
})();
