// Progressive enhancement only: every form works without this file (SPEC W-5).
(function () {
  "use strict";
  // The language switch submits as soon as a language is picked; its button stays for keyboards.
  document.querySelectorAll("form[data-autosubmit] select").forEach(function (select) {
    select.addEventListener("change", function () { select.form.submit(); });
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
