// The live page's script: each change audit follow sends (server-sent events) put in its place.
// Every piece of markup comes from the server, made from escaped text; the page never writes.
(function () {
  "use strict";
  var LIMIT = 500;
  var state = document.getElementById("live-state");
  var put = function (id, html) { document.getElementById(id).innerHTML = html; };
  var source = new EventSource("events");
  var on = function (kind, handle) {
    source.addEventListener(kind, function (event) {
      var data = JSON.parse(event.data);
      handle(data);
      if (data.figures !== undefined) { put("figures", data.figures); }
      document.body.setAttribute("data-events", String(Number(document.body.getAttribute("data-events") || 0) + 1));
    });
  };
  on("reset", function (d) {
    put("tables-body", d.tables); put("anomalies-body", d.anomalies); put("findings-body", d.findings);
  });
  on("tables", function (d) { put("tables-body", d.html); });
  on("anomaly", function (d) {
    document.getElementById("anomalies-body").insertAdjacentHTML("afterbegin", d.html);
  });
  on("finding", function (d) {
    var body = document.getElementById("findings-body");
    body.insertAdjacentHTML("afterbegin", d.html);
    while (body.rows.length > LIMIT) { body.deleteRow(-1); }
  });
  source.onopen = function () { state.textContent = "live"; };
  source.onerror = function () { state.textContent = "reconnecting…"; };
})();
