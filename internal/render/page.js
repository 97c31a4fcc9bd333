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
var tip = document.createElement("div");
tip.className = "tm-tip";
tip.hidden = true;
tip.setAttribute("role", "status");
document.body.appendChild(tip);
document.addEventListener("click", function (e) {
  var g = e.target.closest ? e.target.closest("g.tm-node") : null;
  if (!g || e.target.closest("a")) { tip.hidden = true; return; }
  tip.textContent = g.querySelector("title").textContent;
  tip.hidden = false;
  tip.style.left = Math.max(4, Math.min(e.pageX + 8, document.documentElement.clientWidth - tip.offsetWidth - 4)) + "px";
  tip.style.top = (e.pageY + 14) + "px";
});
