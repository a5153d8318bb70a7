// The trick stepper of a game page: one trick at a time, or all of them.
(function () {
  var tricks = document.querySelectorAll("section.trick"), i = 0, all = false;
  var where = document.getElementById("where");
  function show() {
    tricks.forEach(function (el, k) { el.hidden = !all && k !== i; });
    where.textContent = all ? "" : tricks[i].dataset.where;
  }
  document.getElementById("prev").onclick = function () { all = false; if (i > 0) i--; show(); };
  document.getElementById("next").onclick = function () { all = false; if (i < tricks.length - 1) i++; show(); };
  document.getElementById("all").onclick = function () { all = !all; show(); };
  show();
})();
