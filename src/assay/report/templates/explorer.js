// The threshold explorer: moves between rows the library computed; computes nothing.
(function () {
  "use strict";
  var node = document.getElementById("assay-data");
  if (!node) { return; }
  var data = JSON.parse(node.textContent);
  function percent(v) { return v === null ? "undefined" : (v * 100).toFixed(1) + "%"; }
  function decimals(d) { return function (v) { return v === null ? "undefined" : v.toFixed(d); }; }
  var formats = {
    recall: percent, specificity: percent, fpr: percent, precision: percent, npv: percent,
    accuracy: percent, f1: percent, mcc: decimals(3), youden_j: decimals(3), expected_cost: decimals(4)
  };
  (data.explorers || []).forEach(function (ex) {
    var key = ex.key;
    var slider = document.getElementById("threshold-slider-" + key);
    var box = document.getElementById("threshold-value-" + key);
    var note = document.getElementById("threshold-note-" + key);
    var matrix = document.getElementById("explorer-matrix-" + key);
    var metrics = document.getElementById("explorer-metrics-" + key);
    var rocPoint = document.getElementById("roc-" + key + "-point");
    var prPoint = document.getElementById("pr-" + key + "-point");
    if (!slider || !matrix) { return; }
    var last = ex.thresholds.length - 1;

    function show(i, message) {
      slider.value = String(i);
      var t = ex.thresholds[i];
      // the report's threshold as it was given (0.5), which the held threshold at or above it stands for
      box.value = (ex.given && i === ex.given.index) ? ex.given.text : (t === null ? "" : String(t));
      var beyond = ex.lower ? "below every score" : "above every score";
      slider.setAttribute("aria-valuetext", t === null ? beyond : "threshold " + t);
      note.textContent = message || (t === null ? beyond + ": nothing is predicted " + ex.positive : "");
      ["tp", "fp", "fn", "tn"].forEach(function (c) {
        matrix.querySelector('[data-cell="' + c + '"]').textContent = ex.rows[c][i].toLocaleString("en");
      });
      Object.keys(formats).forEach(function (m) {
        var cell = metrics.querySelector('[data-metric="' + m + '"]');
        if (cell) { cell.textContent = formats[m](ex.rows[m][i]); }
      });
      if (rocPoint) { rocPoint.setAttribute("cx", ex.roc.cx[i]); rocPoint.setAttribute("cy", ex.roc.cy[i]); }
      if (prPoint) {
        if (ex.pr.cy[i] === null) { prPoint.style.display = "none"; }
        else {
          prPoint.style.display = "";
          prPoint.setAttribute("cx", ex.pr.cx[i]);
          prPoint.setAttribute("cy", ex.pr.cy[i]);
        }
      }
    }

    // a typed threshold: the first held threshold at or above it (positive iff score >= threshold), or
    // where lower scores mean the positive class, the last at or below it (positive iff score <= threshold)
    function fromBox() {
      var t = parseFloat(box.value);
      if (isNaN(t)) { return; }
      var i = 0;
      if (ex.lower) {
        i = last;
        while (i > 0 && (ex.thresholds[i] === null || ex.thresholds[i] > t)) { i -= 1; }
        if (ex.exact) { show(i); return; }
        var k = (i < last && ex.thresholds[i] !== null && ex.thresholds[i + 1] - t < t - ex.thresholds[i]) ? i + 1 : i;
        show(k, "moved to the nearest held threshold");
        return;
      }
      while (i < last && ex.thresholds[i] < t) { i += 1; }
      if (ex.exact) { show(i); return; }
      var j = (i > 0 && (ex.thresholds[i] === null || t - ex.thresholds[i - 1] < ex.thresholds[i] - t)) ? i - 1 : i;
      show(j, "moved to the nearest held threshold");
    }

    slider.addEventListener("input", function () { show(parseInt(slider.value, 10)); });
    box.addEventListener("change", fromBox);
    box.addEventListener("keydown", function (event) { if (event.key === "Enter") { fromBox(); } });
    show(Math.min(ex.start, last));
  });
  // on paper every model's section is shown, folded or not
  window.addEventListener("beforeprint", function () {
    Array.prototype.forEach.call(document.querySelectorAll("details.model"), function (d) { d.open = true; });
  });
}());
