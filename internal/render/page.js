document.querySelectorAll("table.sortable").forEach(function (t) {
  var heads = t.tHead.rows[0].cells;
  Array.prototype.forEach.call(heads, function (th, col) {
    var b = document.createElement("button");
    b.type = "button";
    b.textContent = th.textContent;
    th.textContent = "";
    th.appendChild(b);
    b.addEventListener("click", function () {
      var down = th.getAttribute("aria-sort") !== "descending";
      Array.prototype.forEach.call(heads, function (h) { h.removeAttribute("aria-sort"); });
      th.setAttribute("aria-sort", down ? "descending" : "ascending");
      var num = th.classList.contains("n");
      var body = t.tBodies[0];
      var rows = Array.prototype.slice.call(body.rows);
      rows.sort(function (a, c) {
        var x = a.cells[col], y = c.cells[col];
        var r = num ? parseFloat(x.dataset.v) - parseFloat(y.dataset.v) : x.textContent.localeCompare(y.textContent);
        return down ? -r : r;
      });
      rows.forEach(function (r) { body.appendChild(r); });
    });
  });
});
