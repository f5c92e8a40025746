// Sortable tables: a click on a column heading sorts by it (numbers heaviest first, text A to Z; again reverses).
(function () {
  "use strict";
  function valueOf(row, column) {
    var cell = row.cells[column];
    if (!cell) return "";
    var value = cell.getAttribute("data-value");
    return value !== null ? value : cell.textContent.trim();
  }
  var tables = document.querySelectorAll("table.sortable");
  Array.prototype.forEach.call(tables, function (table) {
    var body = table.tBodies[0];
    if (!body) return;
    var headings = table.querySelectorAll("th[data-col]");
    Array.prototype.forEach.call(headings, function (heading) {
      var button = heading.querySelector("button");
      if (!button) return;
      button.addEventListener("click", function () {
        var column = Number(heading.getAttribute("data-col"));
        var numeric = heading.getAttribute("data-type") === "number";
        var state = heading.getAttribute("aria-sort");
        var ascending = state ? state === "descending" : !numeric;
        Array.prototype.forEach.call(headings, function (other) {
          other.removeAttribute("aria-sort");
        });
        heading.setAttribute("aria-sort", ascending ? "ascending" : "descending");
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) {
          var x = valueOf(a, column);
          var y = valueOf(b, column);
          var order = numeric ? Number(x) - Number(y) : x.localeCompare(y);
          return ascending ? order : -order;
        });
        rows.forEach(function (row) {
          body.appendChild(row);
        });
      });
    });
  });
})();
