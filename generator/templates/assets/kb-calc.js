/* Calculators: a form per rules-check, built from the check's input JSON Schema, answered by rules_check
 * itself (Python, under Pyodide, in kb-calc-worker.js). A page with calculators has blocks
 *   <div class="kb-calc" data-spec="calculators.json" data-check="battle_hits">…<button class="kb-calc-open">
 * and this script; nothing else is fetched until a block is opened. The spec (generator/calculators.py)
 * gives each check's title, schema, labels in the reader's language, worked examples and the entries an
 * answer may name. Every text from the data is set with textContent: no HTML is built from data. */
(function () {
  "use strict";
  if (window.kbCalc) return;
  var calc = window.kbCalc = {timings: []};   // timings: [{check, ms}] for the bench and tests
  var specs = {};      // spec URL -> Promise of the spec
  var worker = null;   // a Promise of the worker, once a calculator is opened
  var waiting = {};    // message id -> resolve
  var nextId = 1;

  var ROW_PER_KEY = 10;  /* a map of up to this many named keys shows them all; more (the figures of a Power), rows added */

  function el(tag, props, children) {
    var node = document.createElement(tag);
    Object.keys(props || {}).forEach(function (key) {
      if (key === "text") node.textContent = props[key];
      else if (key === "className") node.className = props[key];
      else node.setAttribute(key, props[key]);
    });
    (children || []).forEach(function (child) { if (child) node.appendChild(child); });
    return node;
  }

  function loadSpec(url) {
    if (!specs[url]) {
      specs[url] = fetch(url).then(function (response) {
        if (!response.ok) throw new Error(url + ": HTTP " + response.status);
        return response.json();
      });
    }
    return specs[url];
  }

  /* The worker runs from a blob of its source, fetched by the page: a page's fetches go through the
   * section's service worker (offline), and so do a blob worker's, while Chromium fetches a worker's own
   * script past it. `name` tells the worker where it lives (its files are beside it). */
  function startWorker() {
    var url = new URL("kb-calc-worker.js", document.querySelector("script[src$='kb-calc.js']").src).href;
    return fetch(url).then(function (response) {
      if (!response.ok) throw new Error(url + ": HTTP " + response.status);
      return response.text();
    }).then(function (source) {
      var started = new Worker(URL.createObjectURL(new Blob([source], {type: "text/javascript"})), {type: "module", name: url});
      started.onmessage = function (event) {
        var done = waiting[event.data.id];
        delete waiting[event.data.id];
        if (done) done(event.data);
      };
      started.onerror = function (event) {  // the worker did not run: every question fails
        var message = event.message || "the calculator's worker did not start";
        Object.keys(waiting).forEach(function (id) { waiting[id]({id: +id, error: message}); delete waiting[id]; });
        worker = null;
        event.preventDefault();
      };
      return started;
    });
  }

  /* A question gets QUESTION_SECONDS to be answered (the runtime's first start excepted): past that the
   * worker is stopped, the question is answered "too large", and the next question starts a new worker. */
  var QUESTION_SECONDS = 10;
  function ask(message, timeout) {
    worker = worker || startWorker();
    return worker.then(function (started) {
      return new Promise(function (resolve) {
        message.id = nextId++;
        waiting[message.id] = resolve;
        started.postMessage(message);
        if (!timeout) return;
        setTimeout(function () {
          if (!waiting[message.id]) return;
          delete waiting[message.id];
          started.terminate();
          worker = null;  /* the next question starts a fresh worker */
          Object.keys(waiting).forEach(function (id) { waiting[id]({id: +id, error: timeout}); delete waiting[id]; });
          resolve({id: message.id, too_long: timeout});
        }, (calc.questionSeconds || QUESTION_SECONDS) * 1000);  /* a test may shorten it */
      });
    }, function (err) { worker = null; return {error: String(err.message || err)}; });
  }

  /* ---- a form from a JSON Schema: each field is {node, read(), fill(value)}; read() gives undefined for an
   * optional field left empty. `at` registers each field's element under its JSON path ("a/b/0"), where the
   * schema's message for that path is shown. */
  function Form(check, ui, at) {
    function label(key) { return check.labels[key] || key; }
    /* A control inside a list or a map has no <label> of its own: it is named after the field it belongs
     * to and its place ("Figures 2"), so a screen reader says what it is for. */
    function named(field, text) {
      if (field.node.matches && field.node.matches("input,select") && !field.node.hasAttribute("aria-label")) field.node.setAttribute("aria-label", text);
      return field;
    }
    function fieldName(path) {
      var keys = path.split("/").filter(function (key) { return key && !/^[0-9]+$/.test(key) && key.charAt(0) !== "#"; });
      return keys.length ? label(keys[keys.length - 1]) : "";
    }
    function described(schema, key) {
      return label(key) + (schema.minimum !== undefined && schema.maximum !== undefined ? " (" + schema.minimum + "–" + schema.maximum + ")" : "");
    }
    function scalarInput(schema, path) {
      var input, type = Array.isArray(schema.type) ? schema.type.filter(function (t) { return t !== "null"; })[0] : schema.type;
      var nullable = Array.isArray(schema.type) && schema.type.indexOf("null") >= 0;
      var choices = schema.enum || (schema.const !== undefined ? [schema.const] : null);
      if (choices) {
        input = el("select", {name: path});
        input.appendChild(el("option", {value: "", text: ui.choose}));
        choices.forEach(function (choice, i) { input.appendChild(el("option", {value: String(i), text: choice === null ? ui.none : label(String(choice))})); });
        return {node: input, read: function () { return input.value === "" ? undefined : choices[+input.value]; },
                fill: function (v) { input.value = v === undefined ? "" : String(choices.indexOf(v)); }};
      }
      if (type === "boolean") {
        input = el("input", {type: "checkbox", name: path});
        return {node: input, boolean: true, read: function () { return input.checked; }, fill: function (v) { input.checked = !!v; }};
      }
      if (type === "integer" || type === "number") {
        input = el("input", {type: "number", name: path, inputmode: type === "integer" ? "numeric" : "decimal", step: type === "integer" ? "1" : "any"});
        if (schema.minimum !== undefined) input.min = schema.minimum;
        if (schema.maximum !== undefined) input.max = schema.maximum;
        return {node: input, read: function () { return input.value === "" ? (nullable ? null : undefined) : Number(input.value); },
                fill: function (v) { input.value = v === undefined || v === null ? "" : String(v); }};
      }
      input = el("input", {type: "text", name: path, autocomplete: "off"});
      if (schema.maxLength) input.maxLength = schema.maxLength;
      return {node: input, read: function () { return input.value === "" ? (nullable ? null : undefined) : input.value; },
              fill: function (v) { input.value = v === undefined || v === null ? "" : String(v); }};
    }
    function build(schema, path) {
      var options = schema.oneOf || schema.anyOf;
      /* alternatives of different shapes get a chooser; a oneOf that only says which fields go together
       * ({required: [...]}) is left to the check's own validation */
      if (options && options.every(function (option) { return option.type || option.properties || option.enum; })) return alternatives(options, path);
      var type = Array.isArray(schema.type) ? schema.type.filter(function (t) { return t !== "null"; })[0] : schema.type;
      if (type === "object" && (schema.properties || !schema.additionalProperties)) return object(schema, path);
      if (type === "object") return map(schema, path);
      if (type === "array") return list(schema, path);
      return scalarInput(schema, path);
    }
    function row(text, field, path) {
      var box = el("div", {className: "kb-calc-field" + (field.boolean ? " kb-calc-check" : "")});
      var id = "kb-calc-" + (nextId++);
      if (field.node.matches && field.node.matches("input,select")) {
        field.node.id = id;
        var caption = el("label", {"for": id, text: text});
        if (field.boolean) { box.appendChild(field.node); box.appendChild(caption); } else { box.appendChild(caption); box.appendChild(field.node); }
      } else {
        box.appendChild(el("div", {className: "kb-calc-legend", text: text}));
        box.appendChild(field.node);
      }
      at(path, box);
      return box;
    }
    function object(schema, path) {
      var node = el("div", {className: "kb-calc-object"}), fields = {};
      var required = schema.required || [];
      Object.keys(schema.properties || {}).forEach(function (key) {
        var sub = path ? path + "/" + key : key;
        var field = build(schema.properties[key], sub);
        field.required = required.indexOf(key) >= 0;
        fields[key] = field;
        node.appendChild(row(described(schema.properties[key], key), field, sub));
      });
      return {node: node, empty: function () { return {}; }, read: function () {
        var value = {}, any = false;
        Object.keys(fields).forEach(function (key) {
          var v = fields[key].read();
          if (fields[key].boolean && !fields[key].required && v === false) v = undefined;  // unchecked optional: the rules' default
          if (v !== undefined) { value[key] = v; any = true; }
          else if (fields[key].required && fields[key].empty !== undefined) value[key] = fields[key].empty();  // {} or [] as given
        });
        return any || !path ? value : undefined;
      }, fill: function (value) {
        Object.keys(fields).forEach(function (key) { fields[key].fill(value ? value[key] : undefined); });
      }};
    }
    function map(schema, path) {
      /* an object of free keys: with a few keys named by an enum (Powers, regions…) and a plain value, a row per
       * key; otherwise rows of key (a choice list where the keys are named) and value, added by the reader */
      var keys = schema.propertyNames && schema.propertyNames.enum, valueSchema = schema.additionalProperties;
      var node = el("div", {className: "kb-calc-map"});
      var plain = valueSchema.type !== "object" && valueSchema.type !== "array" && !valueSchema.oneOf;
      if (keys && plain && keys.length <= ROW_PER_KEY) {
        var fields = {};
        keys.forEach(function (key) {
          fields[key] = build(valueSchema, path + "/" + key);
          node.appendChild(row(label(key), fields[key], path + "/" + key));
        });
        return {node: node, empty: function () { return {}; }, read: function () {
          var value = {}, any = false;
          keys.forEach(function (key) { var v = fields[key].read(); if (v !== undefined && v !== false) { value[key] = v; any = true; } });
          return any ? value : undefined;
        }, fill: function (value) { keys.forEach(function (key) { fields[key].fill(value ? value[key] : undefined); }); }};
      }
      var rows = [], box = el("div");
      var add = el("button", {type: "button", className: "md-button kb-calc-add", text: ui.add});
      node.appendChild(box);
      node.appendChild(add);
      function addRow(key, value) {
        var place = fieldName(path) + " " + (rows.length + 1);
        var keyField = named(scalarInput(keys ? {"enum": keys} : {type: "string"}, path + "/#key"), place);
        var item = {key: keyField, value: named(build(valueSchema, path + "/#value"), place + ": " + ui.value)};
        var line = el("div", {className: "kb-calc-item"}, [keyField.node, item.value.node]);
        var remove = el("button", {type: "button", className: "kb-calc-remove", "aria-label": ui.remove, text: "×"});
        remove.addEventListener("click", function () { rows.splice(rows.indexOf(item), 1); line.remove(); });
        line.appendChild(remove);
        box.appendChild(line);
        rows.push(item);
        keyField.fill(key);
        item.value.fill(value);
      }
      add.addEventListener("click", function () { addRow(undefined, undefined); });
      return {node: node, empty: function () { return {}; }, read: function () {
        var value = {}, any = false;
        rows.forEach(function (item) {
          var k = item.key.read(), v = item.value.read();
          if (k !== undefined) { value[k] = v === undefined && item.value.empty ? item.value.empty() : v; any = true; }
        });
        return any ? value : undefined;
      }, fill: function (value) {
        rows.length = 0; box.textContent = "";
        Object.keys(value || {}).forEach(function (key) { addRow(key, value[key]); });
      }};
    }
    function list(schema, path) {
      /* a list the reader has not touched (its first minItems places stand empty) is left out */
      var node = el("div", {className: "kb-calc-list"}), box = el("div"), items = [], edited = false;
      var add = el("button", {type: "button", className: "md-button kb-calc-add", text: ui.add});
      node.appendChild(box);
      node.appendChild(add);
      node.addEventListener("input", function () { edited = true; });
      node.addEventListener("change", function () { edited = true; });
      var most = typeof schema.maxItems === "number" ? schema.maxItems : Infinity;  /* the schema's bound is the form's */
      function bounded() { add.disabled = items.length >= most; }
      function addItem(value) {
        if (items.length >= most) return;
        var index = items.length, sub = path + "/" + index;
        var field = named(build(schema.items || {}, sub), fieldName(path) + " " + (index + 1));
        var line = el("div", {className: "kb-calc-item"}, [el("span", {className: "kb-calc-index", text: String(index + 1)}), field.node]);
        var remove = el("button", {type: "button", className: "kb-calc-remove", "aria-label": ui.remove, text: "×"});
        remove.addEventListener("click", function () { var values = read(); values.splice(items.indexOf(field), 1); fill(values); edited = true; });
        line.appendChild(remove);
        at(sub, line);
        box.appendChild(line);
        items.push(field);
        field.fill(value);
        bounded();
      }
      function read() {
        return items.map(function (field) { var v = field.read(); return v !== undefined ? v : field.empty ? field.empty() : null; });
      }
      function fill(values) { items.length = 0; box.textContent = ""; (values || []).slice(0, most).forEach(addItem); bounded(); }
      add.addEventListener("click", function () { addItem(undefined); edited = true; });
      fill(new Array(schema.minItems || 0).fill(undefined));
      return {node: node, empty: function () { return []; }, read: function () { return edited ? read() : undefined; },
              fill: function (values) {
                edited = !!(values && values.length);
                fill(values || new Array(schema.minItems || 0).fill(undefined));
              }};
    }
    function alternatives(options, path) {
      var node = el("div", {className: "kb-calc-oneof"}), chooser = el("select", {"aria-label": fieldName(path) || check.title});
      var built = options.map(function (option, i) {
        var names = Object.keys(option.properties || {}).map(label).join(", ");
        chooser.appendChild(el("option", {value: String(i), text: option.title || names || String(i + 1)}));
        var field = named(build(option, path), fieldName(path) || check.title);
        field.node.hidden = i !== 0;
        return field;
      });
      node.appendChild(chooser);
      built.forEach(function (field) { node.appendChild(field.node); });
      chooser.addEventListener("change", function () { built.forEach(function (field, i) { field.node.hidden = String(i) !== chooser.value; }); });
      return {node: node, read: function () { return built[+chooser.value].read(); }, fill: function (value) {
        var keys = Object.keys(value || {});
        var best = options.findIndex(function (option) {
          return keys.length && keys.every(function (key) { return (option.properties || {})[key] !== undefined; });
        });
        chooser.value = String(best < 0 ? 0 : best);
        chooser.dispatchEvent(new Event("change"));
        built[+chooser.value].fill(value);
      }};
    }
    return {build: build};
  }

  function showFollowed(out, ids, spec, ui) {  // the rules an answer (or a refusal) follows, linked to their entries
    var links = ids.filter(function (id) { return spec.entries[id]; }).map(function (id) {
      return el("li", {}, [el("a", {href: spec.entries[id].href, text: spec.entries[id].title})]);
    });
    if (links.length) out.appendChild(el("div", {className: "kb-calc-followed"}, [el("p", {text: ui.followed}), el("ul", {}, links)]));
  }

  function showAnswer(out, result, spec, ui) {
    out.textContent = "";
    if (result.error) {
      out.appendChild(el("p", {className: "kb-calc-refused", text: ui.failed.replace("{error}", result.error)}));
      return;
    }
    var answer = JSON.parse(result.result);
    if (answer.refused === "rules") {  // in the reader's language where the game's data translates it, and the rule that forbids it
      out.appendChild(el("p", {className: "kb-calc-refused", role: "alert"}, [
        el("strong", {text: ui.refused_rules + " "}), el("span", {lang: answer.language, text: answer.message}),
        answer.language !== spec.lang ? el("span", {text: " " + ui.in_english}) : null]));
      showFollowed(out, answer.rules, spec, ui);
      return;
    }
    if (answer.refused === "input") return answer;
    out.appendChild(el("p", {className: "kb-calc-sentence", text: answer.sentence}));
    showFollowed(out, answer.followed, spec, ui);
    out.appendChild(el("details", {className: "kb-calc-json"}, [el("summary", {text: ui.as_json}),
      el("pre", {lang: "en", text: JSON.stringify(answer.output, null, 1)})]));
  }

  function open(block) {
    var ui = JSON.parse(block.getAttribute("data-ui"));
    var status = block.querySelector(".kb-calc-status");
    if (window.location.protocol === "file:") { status.textContent = ui.needs_http; return; }
    var started = performance.now();
    block.querySelector(".kb-calc-open").hidden = true;
    status.textContent = ui.loading;
    var name = block.getAttribute("data-check");
    loadSpec(new URL(block.getAttribute("data-spec"), window.location.href).href).then(function (spec) {
      var check = spec.checks[name], places = {};
      var form = el("form", {className: "kb-calc-form", novalidate: ""});
      var field = Form(check, ui, function (path, node) { places[path] = node; }).build(check.schema, "");
      form.appendChild(field.node);
      var run = el("button", {type: "submit", className: "md-button md-button--primary", text: ui.run});
      var answer = el("div", {className: "kb-calc-answer", "aria-live": "polite"});
      var buttons = el("p", {className: "kb-calc-buttons"}, [run]);
      var examples = el("p", {className: "kb-calc-buttons kb-calc-examples"});
      check.examples.forEach(function (example) {
        var fillButton = el("button", {type: "button", className: "md-button kb-calc-example", "data-example": example.id}, [
          el("span", {text: ui.example + ": "}), el("span", {lang: example.lang, text: example.title}),
          example.language ? el("span", {text: " (" + example.language + ")"}) : null]);  // a title in another language says which
        fillButton.addEventListener("click", function () { field.fill(example.inputs); answer.textContent = ""; });
        examples.appendChild(fillButton);
      });
      /* the answer comes right under "Calculate", above the examples, and is brought into view */
      form.appendChild(buttons);
      form.appendChild(answer);
      if (check.examples.length) form.appendChild(examples);
      form.addEventListener("submit", function (event) {
        event.preventDefault();
        Array.prototype.forEach.call(form.querySelectorAll(".kb-calc-error"), function (node) { node.remove(); });
        Array.prototype.forEach.call(form.querySelectorAll("[aria-invalid]"), function (node) { node.removeAttribute("aria-invalid"); });
        var asked = performance.now();
        run.disabled = true;
        ask({game: spec.game, check: name, inputs: JSON.stringify(field.read() || {}), lang: spec.lang}, ui.too_long).then(function (result) {
          run.disabled = false;
          status.textContent = "";
          if (result.too_long) { answer.textContent = ""; answer.appendChild(el("p", {className: "kb-calc-refused", text: result.too_long})); return; }
          calc.timings.push({check: name, ms: performance.now() - asked});
          var refused = showAnswer(answer, result, spec, ui);
          if (!refused) {
            /* nothing passing covers the answer: a notice without a button goes at once */
            Array.prototype.forEach.call(document.querySelectorAll(".kb-offline-notice:not(.kb-offline-notice-action)"), function (node) { node.remove(); });
            answer.scrollIntoView({block: "nearest", behavior: "smooth"});
          }
          if (refused) {
            var path = refused.field === "(input)" ? "" : refused.field;
            while (path && !places[path]) path = path.indexOf("/") >= 0 ? path.slice(0, path.lastIndexOf("/")) : "";
            var place = places[path] || form;
            var message = el("p", {className: "kb-calc-error", role: "alert"}, [
              el("span", {text: ui.refused_input + " "}), el("span", {lang: refused.message_lang || "en", text: refused.message})]);
            place.appendChild(message);
            var input = place.querySelector("input,select");
            if (input) { input.setAttribute("aria-invalid", "true"); input.focus(); }
          }
        });
      });
      block.appendChild(form);
      status.textContent = ui.loading;
      return ask({warm: true}).then(function (result) {
        status.textContent = result.error ? ui.failed.replace("{error}", result.error) : "";
        calc.timings.push({check: name, ready_ms: performance.now() - started, phases: result.phases});
        block.setAttribute("data-ready", result.error ? "failed" : "yes");
      });
    }).catch(function (err) {
      status.textContent = ui.failed.replace("{error}", String(err.message || err));
      block.setAttribute("data-ready", "failed");
    });
  }

  /* ---- "Keep calculators offline (N MB)": the runtime is not part of the section's offline copy (pages and
   * search are); it is kept when a calculator first fetches it, or here, on the reader's choice, with progress.
   * Each file goes through the section's service worker, which keeps it (sw.js, generator/render/offline.py). */
  function megabytes(ui, bytes) { return window.kbMegabytes(ui, bytes); }  /* kb-offline.js, on every page (loaded later) */
  function runtimeURL(path) { return new URL("calc/" + path, document.querySelector("script[src$='kb-calc.js']").src).href; }

  function keepOffline(box, ui) {
    if (!("serviceWorker" in navigator) || !navigator.serviceWorker.controller || !("caches" in window)) return;
    fetch(runtimeURL("runtime.json")).then(function (response) { return response.json(); }).then(function (runtime) {
      var paths = Object.keys(runtime.fetch || {}), total = runtime.fetch_bytes || 0;
      var status = el("span", {className: "kb-calc-keep-status", role: "status"});
      var button = el("button", {type: "button", className: "md-button kb-calc-keep", text: ui.keep.replace("{size}", megabytes(ui, total))});
      Promise.all(paths.map(function (path) { return caches.match(runtimeURL(path)); })).then(function (found) {
        if (found.every(Boolean)) { status.textContent = ui.kept; box.appendChild(status); return; }
        box.appendChild(button);
        box.appendChild(status);
      });
      button.addEventListener("click", function () {
        button.disabled = true;
        var done = 0;
        function show() { status.textContent = ui.keeping.replace("{done}", megabytes(ui, done)).replace("{size}", megabytes(ui, total)); }
        show();
        paths.reduce(function (previous, path) {
          return previous.then(function () {
            return fetch(runtimeURL(path)).then(function (response) {
              if (!response.ok) throw new Error(path + ": HTTP " + response.status);
              return response.arrayBuffer();
            }).then(function (body) { done += body.byteLength; show(); });
          });
        }, Promise.resolve()).then(function () {
          button.remove();
          status.textContent = ui.kept;
          box.setAttribute("data-kept", "yes");
        }, function (err) {
          button.disabled = false;
          status.textContent = ui.failed.replace("{error}", String(err.message || err));
        });
      });
    }).catch(function () { /* no runtime here: nothing to offer */ });
  }

  function init() {
    var keep = document.querySelector(".kb-calc-keep-box");
    if (keep) {
      var ready = function () { keepOffline(keep, JSON.parse(keep.getAttribute("data-ui"))); };
      if (navigator.serviceWorker && !navigator.serviceWorker.controller) navigator.serviceWorker.addEventListener("controllerchange", ready, {once: true});
      else ready();
    }
    Array.prototype.forEach.call(document.querySelectorAll(".kb-calc"), function (block) {
      var button = block.querySelector(".kb-calc-open");
      button.addEventListener("click", function () { open(block); });
      if (block.hasAttribute("data-open")) open(block);
    });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init); else init();
})();
