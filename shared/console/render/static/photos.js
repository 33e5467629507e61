// Patio console: a vehicle's photos, enhancements of the page's forms (it works without this
// script).
//
// Several photos at once: the console adds one photo per chosen file and answers each one's upload
// target (a presigned POST); every file then goes from the browser straight to the photos'
// bucket, its progress shown, a few at a time; once all are sent the page loads again to show
// them. The words come from the page (#photo-batch's data-*), in its language.
//
// Drag to reorder: on a screen with a pointer that drags, a photo dropped on another takes its
// place, and the new order is posted as a form (the arrows stay for a keyboard and a phone).
(function () {
  "use strict";
  var box = document.getElementById("photo-batch");
  var form = document.getElementById("photo-add");
  if (!box || !form || !form.dataset.uploads || !window.FormData || !window.XMLHttpRequest || !window.fetch) {
    return;
  }
  var input = box.querySelector("input[type=file]");
  var list = box.querySelector("ul.uploads");
  var parallel = 3; // files in flight at once: a phone's uplink gains nothing from more
  box.hidden = false;

  // row adds a file's line: its name, its progress and its state.
  function row(name) {
    var li = document.createElement("li");
    var label = document.createElement("span");
    label.className = "name";
    label.textContent = name;
    var bar = document.createElement("progress");
    bar.max = 100;
    bar.value = 0;
    bar.setAttribute("aria-label", name);
    var state = document.createElement("span");
    state.className = "state";
    state.textContent = box.dataset.sending;
    li.append(label, bar, state);
    list.append(li);
    return { li: li, bar: bar, state: state };
  }

  // send posts a file to its target as the form S3 expects (the target's fields, the type, the
  // file last) and resolves to whether the bucket took it.
  function send(target, file, line) {
    return new Promise(function (resolve) {
      var data = new FormData();
      Object.keys(target.fields).forEach(function (k) {
        data.append(k, target.fields[k]);
      });
      data.append("Content-Type", /^image\//.test(file.type) ? file.type : "image/jpeg");
      data.append("file", file);
      var xhr = new XMLHttpRequest();
      xhr.open("POST", target.url);
      xhr.upload.addEventListener("progress", function (e) {
        if (e.lengthComputable) {
          line.bar.value = Math.round((100 * e.loaded) / e.total);
        }
      });
      var done = function (ok) {
        line.bar.value = ok ? 100 : line.bar.value;
        line.state.textContent = ok ? box.dataset.sent : box.dataset.failed;
        line.li.className = ok ? "sent" : "failed";
        resolve(ok);
      };
      xhr.addEventListener("load", function () {
        done(xhr.status >= 200 && xhr.status < 300);
      });
      xhr.addEventListener("error", function () {
        done(false);
      });
      xhr.send(data);
    });
  }

  // sendAll sends the files to their targets, parallel at a time; it resolves to whether all went.
  function sendAll(targets, files, lines) {
    var next = 0;
    var all = true;
    function worker() {
      var i = next++;
      if (i >= files.length) {
        return Promise.resolve();
      }
      return send(targets[i], files[i], lines[i]).then(function (ok) {
        all = all && ok;
        return worker();
      });
    }
    var workers = [];
    for (var w = 0; w < Math.min(parallel, files.length); w++) {
      workers.push(worker());
    }
    return Promise.all(workers).then(function () {
      return all;
    });
  }

  // finish leaves the lines as they are, with a link to the page as it now is.
  function finish(message) {
    if (message) {
      var p = document.createElement("li");
      p.className = "failed";
      p.textContent = message;
      list.append(p);
    }
    var a = document.createElement("a");
    a.href = box.dataset.done.replace(/\?.*$/, "") + "#photos";
    a.textContent = box.dataset.again;
    box.append(a);
  }

  input.addEventListener("change", function () {
    var files = Array.prototype.slice.call(input.files);
    if (files.length === 0) {
      return;
    }
    input.disabled = true;
    form.hidden = true;
    var lines = files.map(function (f) {
      return row(f.name);
    });
    var body = new URLSearchParams(new FormData(form));
    body.set("count", String(files.length));
    fetch(form.dataset.uploads, {
      method: "POST",
      body: body,
      credentials: "same-origin",
      headers: { Accept: "application/json" },
    })
      .then(function (res) {
        return res
          .json()
          .catch(function () {
            return {};
          })
          .then(function (answer) {
            if (!res.ok || !answer.uploads || answer.uploads.length !== files.length) {
              throw new Error(answer.error || box.dataset.failed);
            }
            return answer.uploads;
          });
      })
      .then(function (targets) {
        return sendAll(targets, files, lines);
      })
      .then(function (all) {
        if (all) {
          window.location.assign(box.dataset.done);
        } else {
          finish("");
        }
      })
      .catch(function (err) {
        lines.forEach(function (line) {
          line.state.textContent = box.dataset.failed;
          line.li.className = "failed";
        });
        finish(err.message);
      });
  });
})();

(function () {
  "use strict";
  var list = document.querySelector("ul.photos[data-order]");
  var form = document.getElementById("photo-add");
  if (!list || !form || list.children.length < 2) {
    return;
  }
  var dragged = null;

  // save posts the order the list now shows, as the page's forms post (the team's field first).
  function save() {
    var f = document.createElement("form");
    f.method = "post";
    f.action = list.dataset.order;
    f.hidden = true;
    var add = function (name, value) {
      var input = document.createElement("input");
      input.type = "hidden";
      input.name = name;
      input.value = value;
      f.append(input);
    };
    add("team", form.elements.team.value);
    Array.prototype.forEach.call(list.children, function (li) {
      add("order", li.dataset.id);
    });
    document.body.append(f);
    f.submit();
  }

  Array.prototype.forEach.call(list.children, function (li) {
    li.draggable = true;
    li.addEventListener("dragstart", function (e) {
      dragged = li;
      e.dataTransfer.effectAllowed = "move";
      e.dataTransfer.setData("text/plain", li.dataset.id);
      li.classList.add("dragging");
    });
    li.addEventListener("dragend", function () {
      li.classList.remove("dragging");
      dragged = null;
    });
    li.addEventListener("dragover", function (e) {
      if (dragged && dragged !== li) {
        e.preventDefault();
        e.dataTransfer.dropEffect = "move";
      }
    });
    li.addEventListener("drop", function (e) {
      e.preventDefault();
      if (!dragged || dragged === li) {
        return;
      }
      var items = Array.prototype.slice.call(list.children);
      var later = items.indexOf(dragged) < items.indexOf(li);
      list.insertBefore(dragged, later ? li.nextSibling : li);
      save();
    });
  });
})();
