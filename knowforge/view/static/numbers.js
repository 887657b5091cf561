// knowforge view: a large run's page opens at once and fetches its numbers (accuracy per task
// and per slice with intervals over every answer) into the placeholder that names them.
(function () {
  "use strict";
  document.querySelectorAll("[data-numbers]").forEach(function (box) {
    var source = box.getAttribute("data-numbers");
    fetch(source, { headers: { "Accept": "text/html" } })
      .then(function (response) {
        if (!response.ok) throw new Error("the server answered " + response.status);
        return response.text();
      })
      .then(function (html) {
        box.outerHTML = html;
        var numbers = document.getElementById("numbers");
        if (numbers && window.kfSortable) window.kfSortable(numbers);
      })
      .catch(function (error) {
        box.innerHTML = "";
        var p = document.createElement("p");
        p.className = "error";
        p.textContent = "The numbers could not be loaded: " + error.message + ". ";
        var a = document.createElement("a");
        a.href = source.replace("?fragment=1", "");
        a.textContent = "Open them on their own page.";
        p.appendChild(a);
        box.appendChild(p);
      });
  });
})();
