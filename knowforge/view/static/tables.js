// knowforge view: click a column heading of a `table.sortable` to sort its rows (numbers as
// numbers; a cell's data-sort attribute, when present, is what is compared).
(function () {
  "use strict";
  function key(cell) {
    var text = cell.hasAttribute("data-sort") ? cell.getAttribute("data-sort") : cell.textContent.trim();
    var number = parseFloat(text);
    return isNaN(number) || !/^[-+]?\d/.test(text) ? { text: text.toLowerCase() } : { number: number };
  }
  function compare(a, b) {
    if (a.number !== undefined && b.number !== undefined) return a.number - b.number;
    if (a.number !== undefined) return -1;
    if (b.number !== undefined) return 1;
    return a.text < b.text ? -1 : a.text > b.text ? 1 : 0;
  }
  function sortBy(table, index, th) {
    var body = table.tBodies[0];
    if (!body) return;
    var ascending = th.getAttribute("aria-sort") !== "ascending";
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (c) { c.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (r1, r2) {
      var c = compare(key(r1.cells[index]), key(r2.cells[index]));
      return ascending ? c : -c;
    });
    rows.forEach(function (r) { body.appendChild(r); });
  }
  function sortable(root) {
    root.querySelectorAll("table.sortable").forEach(function (table) {
      if (!table.tHead || table.getAttribute("data-sortable")) return;
      table.setAttribute("data-sortable", "1");
      Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, index) {
        if (th.classList.contains("nosort")) return;
        th.addEventListener("click", function () { sortBy(table, index, th); });
      });
    });
  }
  window.kfSortable = sortable;
  sortable(document);
})();
