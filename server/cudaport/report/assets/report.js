// The report's few behaviours, with no network: sortable tables, and groups that open on demand from the
// compressed block of details in the page (inflated by the browser's DecompressionStream). The words it writes
// come from the page's "report-text" block, in the report's language.
(function () {
  "use strict";
  var TEXT = JSON.parse(document.getElementById("report-text").textContent);
  var LEVELS = TEXT.levels;
  var CLASSES = ["portable", "mechanical", "manual", "blocker"];

  // A message of TEXT with its {fields} filled in.
  function say(key, fields) {
    return TEXT[key].replace(/\{(\w+)\}/g, function (whole, name) {
      return fields && Object.prototype.hasOwnProperty.call(fields, name) ? String(fields[name]) : whole;
    });
  }

  // ---- building elements (text always through textContent: nothing from the code base becomes markup) -----------
  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    if (attrs) {
      Object.keys(attrs).forEach(function (key) {
        if (attrs[key] !== null && attrs[key] !== undefined) node.setAttribute(key, String(attrs[key]));
      });
    }
    (children || []).forEach(function (child) {
      if (child === null || child === undefined) return;
      node.appendChild(typeof child === "string" || typeof child === "number" ? document.createTextNode(String(child)) : child);
    });
    return node;
  }

  // A count as the report writes it to people: "1,234" in every language.
  function countText(value) {
    return Number(value).toLocaleString("en-US");
  }

  function num(value, shown) {
    return el("td", { class: "num", "data-value": value }, [shown === undefined ? countText(value) : shown]);
  }

  function tallyValue(t) {
    return t[0] * 1e12 + t[1] * 1e6 + t[2];
  }

  function tallyCell(t, label, target, note) {
    var parts = [];
    [["blocker", t[0]], ["manual", t[1]], ["mechanical", t[2]]].forEach(function (pair, i) {
      if (i) parts.push(" ");
      parts.push(pair[1] ? el("span", { class: "d-" + pair[0] }, [countText(pair[1])]) : el("span", { class: "zero" }, ["·"]));
    });
    return el(
      "td",
      {
        class: "tally",
        "data-target": target,
        "data-value": tallyValue(t),
        "data-counts": t.join(" "),
        title: say("tally", { label: label, blocker: countText(t[0]), manual: countText(t[1]), mechanical: countText(t[2]), portable: countText(t[3]) }),
      },
      note ? parts.concat([el("small", { class: "effort" }, [note])]) : parts
    );
  }

  function availabilityCell(a, label, target) {
    var worst = a[0];
    if (worst < 0) return el("td", { "data-target": target, "data-value": -1, class: "muted" }, ["—"]);
    var children = [el("span", { class: "d-" + CLASSES[worst] }, [LEVELS[worst]])];
    if (a[1] && worst < 3) children.push(" ", el("code", { class: "counterpart" }, [a[1]]));
    var tip = say("tally", { label: label, blocker: countText(a[2]), manual: countText(a[3]), mechanical: countText(a[4]), portable: countText(a[5]) });
    if (a[1]) tip = say("counterpart", { tip: tip, name: a[1] });
    return el("td", { "data-target": target, "data-value": worst, title: tip }, children);
  }

  function days(hours, data) {
    function text(value) {
      if (value === 0) return "0";
      if (value < 1) return String(Math.round(value * 100) / 100);
      if (value < 10) return String(Math.round(value * 2) / 2);
      return Math.round(value).toLocaleString("en");
    }
    return text(hours[0] / data.hoursPerDay) + "–" + text(hours[1] / data.hoursPerDay);
  }

  function expandButton(kind, label, children) {
    return el("button", { type: "button", class: "expand", "data-expand": kind, "aria-expanded": "false", title: label || null }, children);
  }

  // ---- the embedded details ------------------------------------------------------------------------------------
  var loaded = null;
  function details() {
    if (loaded) return loaded;
    var node = document.getElementById("report-details");
    if (!node) return Promise.reject(new Error(say("noDetails")));
    if (typeof DecompressionStream === "undefined") {
      return Promise.reject(new Error(say("noStream")));
    }
    var binary = atob(node.textContent.trim());
    var bytes = new Uint8Array(binary.length);
    for (var i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate"));
    loaded = new Response(stream).text().then(function (text) {
      var data = JSON.parse(text);
      data.byStored = {};
      data.files.forEach(function (file) {
        data.byStored[file[4]] = file;
      });
      return data;
    });
    return loaded;
  }

  // The files and rows of each work group, found in one pass over every finding the first time one is opened.
  function workIndex(data) {
    if (data.workFiles) return data.workFiles;
    var index = data.work.map(function () {
      return {};
    });
    data.rows.forEach(function (rows, file) {
      rows.forEach(function (row) {
        var work = data.workOfGroup[row[2]];
        if (work < 0) return;
        var files = index[work];
        (files[file] = files[file] || []).push(row);
      });
    });
    data.workFiles = index;
    return index;
  }

  function rowTallies(rows, count) {
    var tallies = [];
    for (var t = 0; t < count; t++) tallies.push([0, 0, 0, 0]);
    rows.forEach(function (row) {
      for (var t = 0; t < count; t++) {
        var level = row[3].charAt(t);
        if (level !== "-") tallies[t][3 - Number(level)] += 1;
      }
    });
    return tallies;
  }

  // A message with its `code spans` shown as code.
  function inlineText(message) {
    return message.split("`").map(function (part, i) {
      return i % 2 ? el("code", null, [part]) : document.createTextNode(part);
    });
  }

  // A row's message on target t, the name it is about written as `general` ("…" for a group of several names).
  function messageOf(data, row, t, general) {
    var message = data.strings[row[4][t]];
    var name = nameOf(data, row);
    return general === undefined || !name ? message : message.split(name).join(general);
  }

  // What a row means on each target: one item per message, naming the targets that share it, heaviest first.
  function whyItems(data, row, general) {
    var items = [];
    data.targets.forEach(function (target, t) {
      var level = row[3].charAt(t);
      if (level === "-") return;
      var message = messageOf(data, row, t, general);
      var same = items.filter(function (item) {
        return item.level === Number(level) && item.message === message;
      })[0];
      if (same) same.labels.push(data.labels[t]);
      else items.push({ level: Number(level), message: message, labels: [data.labels[t]] });
    });
    return items.sort(function (a, b) {
      return b.level - a.level;
    });
  }

  // What rows share to be one group: their difficulty and message on each target, whatever name it is about (the
  // launches of forty kernels are one group; each line shows its own name).
  function whyKey(data, row) {
    return row[3] + "\u0000" + data.targets.map(function (target, t) {
      return row[3].charAt(t) === "-" ? "" : messageOf(data, row, t, "\u0001");
    }).join("\u0000");
  }

  // A line's code, trimmed, with the name the finding is about set off in it: at the finding's column, else where
  // the name first is on the line.
  function codeCell(data, row) {
    var name = nameOf(data, row);
    var line = row[5] >= 0 ? data.strings[row[5]] : "";
    var text = line.replace(/^\s+/, "");
    if (text === "") return el("td", { class: "code" }, [el("code", null, [name])]);
    var at = row[1] - 1 - (line.length - text.length);
    if (!name || text.substr(at, name.length) !== name) at = name ? text.indexOf(name) : -1;
    var parts = at < 0 ? [text] : [text.slice(0, at), el("mark", null, [name]), text.slice(at + name.length)];
    return el("td", { class: "code" }, [el("code", null, parts)]);
  }

  // A file's lines, grouped by what they mean: each group's message once, above the lines it covers (their code,
  // and each target's difficulty, its own message in the tooltip), the groups in the order their first line comes.
  function linesTable(data, path, rows) {
    var head = [el("th", null, [say("line")]), el("th", null, [say("code")])];
    data.targets.forEach(function (target, t) {
      head.push(el("th", { class: "short", title: data.labels[t] }, [target]));
    });
    var order = [];
    var groups = {};
    rows.forEach(function (row) {
      var key = whyKey(data, row);
      if (!groups[key]) {
        groups[key] = [];
        order.push(key);
      }
      groups[key].push(row);
    });
    var body = [];
    order.forEach(function (key) {
      var members = groups[key];
      var lines = {};
      members.forEach(function (row) {
        lines[row[0]] = true;
      });
      var count = Object.keys(lines).length;
      var several = members.some(function (row) {
        return nameOf(data, row) !== nameOf(data, members[0]);
      });
      var items = whyItems(data, members[0], several ? "…" : undefined).map(function (item) {
        var who = data.targets.length > 1 ? [el("strong", null, [item.labels.join(", ") + " "])] : [];
        return el("li", null, who.concat([el("span", { class: "d-" + CLASSES[item.level] }, [TEXT.difficulties[item.level]]), say("labelled", { label: "", text: "" })], inlineText(item.message)));
      });
      var many = el("small", null, [say(count === 1 ? "lineOne" : "lineOther", { count: countText(count) })]);
      body.push(el("tr", { class: "why-group" }, [el("td", { colspan: 2 + data.targets.length }, [el("ul", null, items), many])]));
      members.forEach(function (row) {
        var cells = [
          el("td", { class: "where", title: path + ":" + row[0] + ":" + row[1] }, [row[0] + ":" + row[1]]),
          codeCell(data, row),
        ];
        data.targets.forEach(function (target, t) {
          var level = row[3].charAt(t);
          if (level === "-") {
            cells.push(el("td", { class: "muted" }, ["—"]));
            return;
          }
          var message = data.strings[row[4][t]];
          cells.push(el("td", { "data-target": target, title: say("labelled", { label: data.labels[t], text: message.replace(/`/g, "") }) }, [el("span", { class: "d-" + CLASSES[Number(level)] }, [LEVELS[Number(level)]])]));
        });
        body.push(el("tr", { "data-line": row[0], "data-column": row[1], "data-name": nameOf(data, row) }, cells));
      });
    });
    return el("table", { class: "lines" }, [el("thead", null, [el("tr", null, head)]), el("tbody", null, body)]);
  }

  // What a work group means on each target, once: the most common message of its findings there.
  function groupWhy(data, files) {
    var counts = data.targets.map(function () {
      return {};
    });
    Object.keys(files).forEach(function (key) {
      files[key].forEach(function (row) {
        data.targets.forEach(function (target, t) {
          var level = row[3].charAt(t);
          if (level === "-") return;
          var id = level + ":" + row[4][t];
          counts[t][id] = (counts[t][id] || 0) + 1;
        });
      });
    });
    var items = [];
    counts.forEach(function (byMessage, t) {
      var best = null;
      Object.keys(byMessage).forEach(function (id) {
        if (best === null || byMessage[id] > byMessage[best] || (byMessage[id] === byMessage[best] && id > best)) best = id;
      });
      if (best === null) return;
      var level = Number(best.split(":")[0]);
      var message = data.strings[Number(best.split(":")[1])];
      items.push(
        el(
          "li",
          { "data-target": data.targets[t] },
          [el("strong", null, [data.labels[t] + " "]), el("span", { class: "d-" + CLASSES[level] }, [TEXT.difficulties[level]]), say("labelled", { label: "", text: "" })].concat(inlineText(message))
        )
      );
    });
    return el("ul", { class: "group-why" }, items);
  }

  function nameOf(data, row) {
    return data.groupNames[row[2]];
  }

  // ---- opening and closing -----------------------------------------------------------------------------------------
  function columnsOf(row) {
    var count = 0;
    Array.prototype.forEach.call(row.cells, function (cell) {
      count += cell.colSpan || 1;
    });
    return count;
  }

  function detailRow(owner, row, content) {
    var detail = el("tr", { class: "detail", "data-owner": owner }, [el("td", { colspan: columnsOf(row) }, [content])]);
    row.parentNode.insertBefore(detail, row.nextSibling);
    return detail;
  }

  function close(button) {
    var row = button.closest("tr");
    var kind = button.getAttribute("data-expand");
    button.setAttribute("aria-expanded", "false");
    if (kind.indexOf("folder:") === 0) {
      var prefix = kind.slice(7) + "/";
      Array.prototype.slice.call(row.parentNode.rows).forEach(function (other) {
        var path = other.getAttribute("data-folder");
        if (path !== null && (prefix === "/" ? path !== "" : path.indexOf(prefix) === 0)) other.remove();
      });
      return;
    }
    var next = row.nextSibling;
    if (next && next.getAttribute && next.getAttribute("data-owner") === kind) next.remove();
  }

  function open(button) {
    var row = button.closest("tr");
    var kind = button.getAttribute("data-expand");
    button.setAttribute("aria-expanded", "true");
    var waiting = kind.indexOf("folder:") === 0 ? null : detailRow(kind, row, el("p", { class: "loading" }, [say("opening")]));
    details().then(
      function (data) {
        if (button.getAttribute("aria-expanded") !== "true") return;
        if (waiting) waiting.remove();
        render(kind, row, data);
      },
      function (error) {
        if (waiting) waiting.firstChild.textContent = say("cannotOpen", { error: error.message });
      }
    );
  }

  function render(kind, row, data) {
    var parts = kind.split(":");
    if (parts[0] === "folder") return renderFolder(kind.slice(7), row, data);
    if (parts[0] === "file") {
      var file = data.byStored[Number(parts[1])];
      return detailRow(kind, row, linesTable(data, file[0], data.rows[Number(parts[1])]));
    }
    if (parts[0] === "work") return detailRow(kind, row, workFiles(data, Number(parts[1])));
    if (parts[0] === "wlines") {
      var rows = workIndex(data)[Number(parts[1])][Number(parts[2])] || [];
      return detailRow(kind, row, linesTable(data, data.byStored[Number(parts[2])][0], rows));
    }
    if (parts[0] === "route") return detailRow(kind, row, routeFiles(data, parts[1], parts.slice(2).join(":")));
  }

  function workFiles(data, work) {
    var files = workIndex(data)[work];
    var list = Object.keys(files).map(function (key) {
      return [Number(key), files[key]];
    });
    list.sort(function (a, b) {
      return b[1].length - a[1].length || (data.byStored[a[0]][0] < data.byStored[b[0]][0] ? -1 : 1);
    });
    var head = [el("th", null, [say("file")]), el("th", { class: "num" }, [say("uses")])];
    data.targets.forEach(function (target, t) {
      head.push(el("th", { class: "short num", title: data.labels[t] }, [target]));
    });
    var body = list.map(function (entry) {
      var path = data.byStored[entry[0]][0];
      var cells = [
        el("td", { class: "path" }, [expandButton("wlines:" + work + ":" + entry[0], null, [path])]),
        num(entry[1].length),
      ];
      rowTallies(entry[1], data.targets.length).forEach(function (tally, t) {
        cells.push(tallyCell(tally, data.labels[t], data.targets[t]));
      });
      return el("tr", null, cells);
    });
    var table = el("table", { class: "work-files" }, [el("thead", null, [el("tr", null, head)]), el("tbody", null, body)]);
    return el("div", null, [groupWhy(data, files), table]);
  }

  function routeFiles(data, target, route) {
    var t = data.targets.indexOf(target);
    var files = data.files.filter(function (file) {
      return file[3].charAt(t) === route;
    });
    files.sort(function (a, b) {
      return b[5][t][1] - a[5][t][1] || (a[0] < b[0] ? -1 : 1);
    });
    var body = files.map(function (file) {
      return el("tr", null, [
        el("td", { class: "path" }, [expandButton("file:" + file[4], null, [file[0]])]),
        num(file[5][t][1], days(file[5][t], data)),
        tallyCell(file[2][t], data.labels[t], target),
      ]);
    });
    var head = el("tr", null, [el("th", null, [say("file")]), el("th", { class: "num" }, [say("personDays")]), el("th", { class: "target" }, [data.labels[t]])]);
    return el("table", { class: "route-files" }, [el("thead", null, [head]), el("tbody", null, body)]);
  }

  function findFolder(node, path) {
    if (node[0] === path) return node;
    for (var i = 0; i < node[5].length; i++) {
      var child = node[5][i];
      if (path === child[0] || path.indexOf(child[0] + "/") === 0) return findFolder(child, path);
    }
    return null;
  }

  function folderRow(data, node, depth) {
    var name = node[0] === "" ? "." : node[0].split("/").pop();
    var label = node[5].length ? expandButton("folder:" + node[0], say("showFolders"), [name]) : el("span", null, [name]);
    var cells = [el("td", { class: "path depth-" + Math.min(depth, 8), title: node[0] || "." }, [label]), num(node[1]), num(node[2])];
    node[3].forEach(function (tally, t) {
      cells.push(tallyCell(tally, data.labels[t], data.targets[t], say("days", { days: days(node[4][t], data) })));
    });
    return el("tr", { "data-folder": node[0], "data-depth": depth }, cells);
  }

  function renderFolder(path, row, data) {
    var node = findFolder(data.folders, path);
    if (!node) return;
    var depth = Number(row.getAttribute("data-depth")) + 1;
    var after = row;
    node[5].forEach(function (child) {
      var added = folderRow(data, child, depth);
      after.parentNode.insertBefore(added, after.nextSibling);
      after = added;
    });
  }

  // ---- "show all" ----------------------------------------------------------------------------------------------
  function showAll(button) {
    var kind = button.getAttribute("data-show-all");
    var table = { work: "work-apis", files: "files", apis: "apis-table" }[kind];
    var body = document.getElementById(table).tBodies[0];
    button.disabled = true;
    details().then(
      function (data) {
        var shown = body.querySelectorAll("tr:not(.detail)").length;
        var rows = kind === "work" ? data.work : kind === "files" ? data.files : data.apis;
        rows.slice(shown).forEach(function (item, i) {
          body.appendChild(kind === "work" ? workRow(data, item, shown + i) : kind === "files" ? fileRow(data, item) : apiRow(data, item));
        });
        button.parentNode.remove();
      },
      function (error) {
        button.textContent = say("cannotOpen", { error: error.message });
      }
    );
  }

  // What a row of a library's declarations stands for: "48 names: `Npp8u`, `Npp32s`, `Npp32f` (+45 more)".
  function namesText(count, first) {
    var listed = first.map(function (name) {
      return "`" + name + "`";
    }).join(", ");
    if (count > first.length) listed = say("more", { names: listed, count: countText(count - first.length) });
    return say(count === 1 ? "nameOne" : "nameOther", { count: countText(count), names: listed });
  }

  function workRow(data, item, index) {
    var grouped = item[7] > 0;
    var title = item[1] || grouped ? el("span", { class: "construct" }, [item[0]]) : el("code", null, [item[0]]);
    var about = [item[2] + " · " + item[3]];
    if (grouped) about = about.concat([" · "], inlineText(namesText(item[7], item[8])));
    var cells = [
      el("td", { class: "name", "data-value": item[0] }, [expandButton("work:" + index, null, [title]), el("small", null, about)]),
      num(item[4]),
      num(item[5]),
    ];
    item[6].forEach(function (a, t) {
      cells.push(availabilityCell(a, data.labels[t], data.targets[t]));
    });
    return el("tr", grouped ? { "data-work": index, "data-names": item[7] } : { "data-work": index }, cells);
  }

  function fileRow(data, file) {
    var cells = [el("td", { class: "path", "data-value": file[0] }, [expandButton("file:" + file[4], null, [file[0]])]), num(file[1])];
    file[2].forEach(function (tally, t) {
      var route = file[3].charAt(t);
      cells.push(tallyCell(tally, data.labels[t], data.targets[t], route === "-" ? "" : say("route", { id: route })));
    });
    return el("tr", { "data-file": file[4] }, cells);
  }

  function apiRow(data, api) {
    var cells = [
      el("td", { class: "name", "data-value": api[0] }, [el("code", null, [api[0]])]),
      el("td", { class: "family" }, [api[1] + " ", el("small", null, [api[2]])]),
      num(api[3]),
      num(api[4]),
    ];
    api[5].forEach(function (a, t) {
      cells.push(availabilityCell(a, data.labels[t], data.targets[t]));
    });
    return el("tr", null, cells);
  }

  document.addEventListener("click", function (event) {
    var button = event.target.closest ? event.target.closest("button") : null;
    if (!button) return;
    if (button.classList.contains("expand")) {
      if (button.getAttribute("aria-expanded") === "true") close(button);
      else open(button);
    } else if (button.classList.contains("show-all")) {
      showAll(button);
    }
  });

  // ---- sortable tables: a click on a column heading sorts by it (numbers heaviest first, text A to Z) ----------
  function valueOf(row, column) {
    var cell = row.cells[column];
    if (!cell) return "";
    var value = cell.getAttribute("data-value");
    return value !== null ? value : cell.textContent.trim();
  }
  Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), function (table) {
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
        Array.prototype.forEach.call(body.querySelectorAll("tr.detail"), function (detail) {
          detail.remove(); // opened groups close: their rows belong under the row that opened them
        });
        Array.prototype.forEach.call(body.querySelectorAll("button.expand[aria-expanded='true']"), function (open) {
          open.setAttribute("aria-expanded", "false");
        });
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
