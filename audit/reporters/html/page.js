// The morning report's script: filters for the findings and sorting for the tables. The page is
// whole without it; it makes no request (the page's Content-Security-Policy forbids any).
(function () {
  "use strict";
  var form = document.getElementById("filters");
  if (form) {
    var selects = Array.prototype.slice.call(form.querySelectorAll("select"));
    var groups = Array.prototype.slice.call(document.querySelectorAll("#findings-table tbody.group"));
    var shown = document.getElementById("findings-shown");
    var total = document.querySelectorAll("#findings-table tr.finding").length;
    var filter = function () {
      var count = 0;
      groups.forEach(function (group) {
        var any = false;
        Array.prototype.forEach.call(group.querySelectorAll("tr.finding"), function (tr) {
          var keep = selects.every(function (s) { return s.value === "" || tr.getAttribute("data-" + s.name) === s.value; });
          tr.hidden = !keep;
          if (keep) { any = true; count += 1; }
        });
        group.hidden = !any;
      });
      shown.textContent = count + " of " + total + " findings shown";
    };
    selects.forEach(function (s) { s.addEventListener("change", filter); });
    document.getElementById("filters-reset").addEventListener("click", function () {
      selects.forEach(function (s) { s.value = ""; });
      filter();
    });
    form.addEventListener("submit", function (e) { e.preventDefault(); });
    form.hidden = false;
  }

  var NUMBER = /^[-+−]?[\d,]*\.?\d+(e[-+]?\d+)?$/i;
  var key = function (cell) {
    var t = cell.textContent.trim();
    return NUMBER.test(t) ? parseFloat(t.replace(/,/g, "").replace("−", "-")) : t;
  };
  var compare = function (a, b) {
    var x = a[0], y = b[0];
    if (typeof x === "number" && typeof y === "number") { return x - y; }
    if (typeof x === "number") { return -1; }
    if (typeof y === "number") { return 1; }
    return x < y ? -1 : (x > y ? 1 : 0);
  };
  Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), function (table) {
    var heads = Array.prototype.slice.call(table.tHead.rows[0].cells);
    heads.forEach(function (th, column) {
      th.setAttribute("aria-sort", "none");
      th.tabIndex = 0;
      var sort = function () {
        var down = th.getAttribute("aria-sort") === "ascending" ? -1 : 1;
        var body = table.tBodies[0];
        var rows = Array.prototype.map.call(body.rows, function (tr, i) { return [key(tr.cells[column]), i, tr]; });
        rows.sort(function (a, b) { return down * compare(a, b) || a[1] - b[1]; });
        rows.forEach(function (r) { body.appendChild(r[2]); });
        heads.forEach(function (h) { h.setAttribute("aria-sort", "none"); });
        th.setAttribute("aria-sort", down === 1 ? "ascending" : "descending");
      };
      th.addEventListener("click", sort);
      th.addEventListener("keydown", function (e) { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); sort(); } });
    });
  });
  // What is folded prints too: the print style shows it where the browser lets it; elsewhere the folds
  // open for the printing and close again after.
  var opened = [];
  window.addEventListener("beforeprint", function () {
    opened = Array.prototype.filter.call(document.querySelectorAll("details.fold"), function (d) { return !d.open; });
    opened.forEach(function (d) { d.open = true; });
  });
  window.addEventListener("afterprint", function () {
    opened.forEach(function (d) { d.open = false; });
    opened = [];
  });
  document.body.setAttribute("data-ready", "1");
}());
