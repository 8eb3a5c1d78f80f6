// toolwright ui: the page. Plain JavaScript, no framework; every text goes through textContent
// (tool descriptions may come from an MCP server and are never trusted as HTML).
"use strict";

const $ = (sel, root) => (root || document).querySelector(sel);
const main = () => $("#main");

function h(tag, attrs, ...kids) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") el.className = v;
    else if (k === "text") el.textContent = v;
    else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? "" : v);
  }
  for (const kid of kids.flat()) {
    if (kid === undefined || kid === null || kid === false) continue;
    el.append(kid instanceof Node ? kid : document.createTextNode(String(kid)));
  }
  return el;
}

const pretty = (v) => JSON.stringify(v, null, 2);
const fmt = (x, d) => (typeof x === "number" ? x.toFixed(d === undefined ? 3 : d) : "–");

async function api(path, body) {
  const init = body === undefined ? {} : {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  };
  const res = await fetch(path, Object.assign({ credentials: "same-origin" }, init));
  const text = await res.text();
  let data;
  try { data = JSON.parse(text); } catch (_) { data = { error: text }; }
  if (!res.ok) throw new Error(data.error || res.status + " " + res.statusText);
  return data;
}

function badge(text, cls) { return h("span", { class: "badge " + (cls || ""), text }); }
function effectBadges(t) {
  return [
    badge(t.side_effects, "b-" + t.side_effects),
    t.requires_confirmation ? badge("needs approval", "b-confirm") : null,
  ];
}

// ---------------------------------------------------------------- routing between views
let toolsCache = null;
async function tools() {
  if (!toolsCache) toolsCache = await api("/api/tools");
  return toolsCache;
}

function route() {
  const hash = location.hash || "#/tools";
  const [, view, arg] = hash.split("/");
  document.querySelectorAll("[data-nav]").forEach((a) =>
    a.classList.toggle("active", a.dataset.nav === (view === "tool" ? "tools" : view)));
  const show = { tools: viewTools, tool: viewTool, agent: viewAgent, metrics: viewMetrics }[view] || viewTools;
  show(decodeURIComponent(arg || "")).catch((e) => main().replaceChildren(h("p", { class: "sev-error", text: String(e.message || e) })));
}
window.addEventListener("hashchange", route);
window.addEventListener("DOMContentLoaded", async () => {
  route();
  try {
    const t = await tools();
    $("#source").textContent = t.tools.length + " tools · " + t.source + (t.definition_only ? " (definitions: calls are validated, not run)" : "") + " · router " + t.scorer;
  } catch (_) { /* the view shows the error */ }
});

// ---------------------------------------------------------------- tools list and search
let searchText = "";
async function viewTools() {
  const t = await tools();
  const input = h("input", { type: "search", id: "search", placeholder: "Search tools the way the router ranks them (e.g. “weather in Paris”)", value: searchText, autocomplete: "off" });
  const list = h("div", { id: "tool-list" });
  const findings = t.toolset_findings.length ? h("div", { class: "card" }, h("h3", { text: "Toolset lint findings" }), t.toolset_findings.map(findingRow)) : null;
  main().replaceChildren(...[input, h("p", { class: "muted", id: "search-note" }), list, findings].filter(Boolean));
  let timer = null, seq = 0;
  const refresh = async () => {
    const q = input.value.trim();
    searchText = input.value;
    const mine = ++seq;
    if (!q) { $("#search-note").textContent = "All tools, by category."; renderGroups(list, t.tools); list.dataset.query = ""; return; }
    const res = await api("/api/search?k=20&q=" + encodeURIComponent(q));
    if (mine !== seq) return;
    $("#search-note").textContent = "Ranked by the " + res.scorer + " router (the same as `toolwright route`).";
    renderRanked(list, res.tools, t.tools);
    list.dataset.query = q;
  };
  input.addEventListener("input", () => { clearTimeout(timer); timer = setTimeout(() => refresh().catch(showListError), 120); });
  await refresh();
  input.focus();
}
function showListError(e) { $("#tool-list").replaceChildren(h("p", { class: "sev-error", text: String(e.message || e) })); }

function toolRow(t, rank, scores) {
  return h("div", { class: "tool-row", "data-tool": t.name },
    h("span", { class: "rank", text: rank ? rank + "." : "" }),
    h("span", {}, h("a", { class: "name", href: "#/tool/" + encodeURIComponent(t.name), text: t.name })),
    h("span", {}, t.summary, " ", t.category ? badge(t.category) : null, effectBadges(t)),
    h("span", { class: "scores" }, scores || ""));
}
function renderGroups(list, all) {
  const groups = new Map();
  for (const t of all) {
    const c = t.category || "uncategorized";
    if (!groups.has(c)) groups.set(c, []);
    groups.get(c).push(t);
  }
  list.replaceChildren(...[...groups.entries()].sort((a, b) => a[0].localeCompare(b[0])).map(([c, ts]) =>
    h("div", { class: "group" }, h("h3", { text: c }), ts.map((t) => toolRow(t)))));
}
function renderRanked(list, ranked, all) {
  const byName = new Map(all.map((t) => [t.name, t]));
  if (!ranked.length) { list.replaceChildren(h("p", { class: "muted", text: "No tool matches." })); return; }
  list.replaceChildren(...ranked.map((r, i) => {
    const t = byName.get(r.name) || { name: r.name, summary: "", side_effects: "?" };
    const s = "score " + fmt(r.score) + (r.lexical != null ? " · bm25 " + fmt(r.lexical, 2) : "") + (r.similarity != null ? " · sim " + fmt(r.similarity, 2) : "");
    return toolRow(t, i + 1, s);
  }));
}

function findingRow(f) {
  return h("div", { class: "finding" },
    h("span", { class: "sev-" + f.severity, text: f.severity + " " + f.rule }), " ",
    f.pointer ? h("code", { text: f.pointer }) : null, " ", f.message,
    h("div", { class: "muted", text: "fix: " + f.fix }));
}

// ---------------------------------------------------------------- one tool
async function viewTool(name) {
  const d = await api("/api/tools/" + encodeURIComponent(name));
  const spec = d.spec;
  const form = buildForm(spec.parameters || {});
  const result = h("div", { id: "result" });
  const raw = h("textarea", { id: "raw", rows: 8, hidden: true, spellcheck: "false" });
  const rawToggle = h("input", { type: "checkbox", id: "raw-toggle" });
  const strict = h("input", { type: "checkbox", id: "strict" });
  rawToggle.addEventListener("change", () => {
    if (rawToggle.checked) {
      raw.value = pretty(form.value());
      raw.hidden = false;
      form.fieldset.disabled = true;
    } else {
      try { form.set(JSON.parse(raw.value || "{}")); } catch (_) { /* keep the form as it was */ }
      raw.hidden = true;
      form.fieldset.disabled = false;
    }
  });
  const submit = h("button", { class: "primary", id: "submit", type: "submit", text: "Call " + spec.name });
  const formEl = h("form", { id: "call-form", autocomplete: "off", novalidate: true },
    h("div", { id: "form-errors" }), form.fieldset,
    h("label", {}, rawToggle, " Raw JSON mode"), raw,
    h("div", { class: "actions" }, submit, " ",
      h("label", { class: "muted" }, strict, " strict (no lenient coercion)")));
  formEl.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    let args;
    if (rawToggle.checked) {
      try { args = JSON.parse(raw.value); } catch (e) {
        form.clearErrors();
        $("#form-errors").replaceChildren(h("div", { class: "field-error", text: "The raw arguments are not valid JSON: " + e.message }));
        return;
      }
    } else args = form.value();
    submit.disabled = true;
    try {
      const env = await api("/api/call", { tool: spec.name, arguments: args, strict: strict.checked });
      showEnvelope(result, env, form);
    } catch (e) {
      result.replaceChildren(h("p", { class: "sev-error", text: String(e.message || e) }));
    } finally { submit.disabled = false; }
  });

  const exportsBox = h("div");
  const tabs = h("div", { class: "tabs" });
  const showExport = (x) => {
    tabs.querySelectorAll("button").forEach((b) => b.classList.toggle("on", b.dataset.dialect === x.dialect));
    exportsBox.replaceChildren(
      x.lowerings.length
        ? h("div", {}, h("div", { class: "muted", text: "Portability: lowered for " + x.dialect + ":" }),
          h("ul", {}, x.lowerings.map((l) => h("li", {}, h("code", { text: l.pointer || "(root)" }), " ", l.construct, " → ", l.action))))
        : h("div", { class: "muted", text: "Portability: exported as is, nothing lowered." }),
      h("pre", { class: "export", text: pretty(x.definition) }));
  };
  d.exports.forEach((x) => tabs.append(h("button", { type: "button", "data-dialect": x.dialect, text: x.dialect, onclick: () => showExport(x) })));
  if (d.exports.length) showExport(d.exports[0]);

  const meta = spec.meta || {};
  main().replaceChildren(
    h("div", { id: "tool-page" },
      h("p", {}, h("a", { href: "#/tools", text: "← all tools" })),
      h("h2", { class: "tool-name" }, h("code", { text: spec.name }), " ", meta.category ? badge(meta.category) : null, effectBadges(d.tool)),
      h("p", { class: "muted", text: meta.display_label || "" }),
      h("div", { class: "cols" },
        h("div", {},
          h("div", { class: "card" }, h("h3", { text: "Description" }), h("pre", { class: "description", text: spec.description })),
          h("div", { class: "card" }, h("h3", { text: "Try it" }), formEl),
          result),
        h("div", {},
          h("div", { class: "card", id: "lint" }, h("h3", { text: "Lint findings" }),
            d.findings.length ? d.findings.map(findingRow) : h("p", { class: "muted", text: "No findings." })),
          h("div", { class: "card" }, h("h3", { text: "Parameters (JSON Schema)" }), h("pre", { id: "schema", text: pretty(spec.parameters) })),
          h("div", { class: "card" }, h("h3", { text: "Exports by provider dialect" }), tabs, exportsBox),
          h("div", { class: "card" }, h("h3", { text: "Metadata" }), h("pre", { text: pretty(meta) }))))));
}

// ---------------------------------------------------------------- the envelope
function showEnvelope(box, env, form) {
  if (form) form.clearErrors();
  const err = env.error;
  const meta = env.meta || {};
  const compact = !form && !box.id;
  const kids = [h("div", { class: "env-head" },
    h("span", { class: "badge status s-" + env.status, text: env.status }),
    err ? h("code", { class: "error-code", text: err.code }) : null,
    h("span", { text: env.message || "" }))];
  if (err) {
    if (err.suggestion) kids.push(h("div", { class: "suggestion" }, h("b", { text: "Suggestion: " }), h("span", { class: "suggestion-text", text: err.suggestion })));
    if (form && err.fields && err.fields.length) form.showErrors(err.fields, err.suggestion);
    if (err.fields && err.fields.length) {
      kids.push(h("ul", { class: "fields" }, err.fields.map((f) => h("li", {}, h("code", { text: f.path || "(arguments)" }), " ", f.message,
        f.received !== undefined ? " (received " + JSON.stringify(f.received) + ")" : ""))));
    }
  }
  if (env.status === "needs_confirmation") kids.push(approvalBox(env, box, form));
  else if (env.data !== undefined && env.data !== null && compact) kids.push(h("pre", { class: "data", text: JSON.stringify(env.data) }));
  else if (env.data !== undefined && env.data !== null) kids.push(h("h3", { text: "data" }), h("pre", { class: "data", text: pretty(env.data) }));
  if (compact) {
    kids.push(h("div", { class: "small", text: meta.duration_ms + " ms · attempt " + meta.attempt + (meta.truncated ? " · truncated" : "") + (meta.coerced && meta.coerced.length ? " · coerced " + JSON.stringify(meta.coerced) : "") }),
      h("details", {}, h("summary", { class: "small", text: "Whole envelope (JSON)" }), h("pre", { class: "envelope", text: pretty(env) })));
    box.replaceChildren(h("div", { class: "envelope-card" }, kids));
    return;
  }
  const rows = [["tool", meta.tool], ["duration", meta.duration_ms + " ms"], ["attempt", meta.attempt + (meta.attempts_left != null ? " (" + meta.attempts_left + " left)" : "")],
    ["truncated", meta.truncated ? pretty(meta.truncated) : "no"], ["coerced", meta.coerced && meta.coerced.length ? pretty(meta.coerced) : "none"],
    ["replayed", String(!!meta.replayed)]];
  kids.push(h("h3", { text: "meta" }), h("dl", { class: "kv meta" }, rows.flatMap(([k, v]) => [h("dt", { text: k }), h("dd", { text: v === undefined ? "–" : v })])));
  kids.push(h("details", {}, h("summary", { text: "Whole envelope (JSON)" }), h("pre", { class: "envelope", text: pretty(env) })));
  box.replaceChildren(h("div", { class: "card envelope-card" }, kids));
}

// Destructive calls: the preview, and the person's click. Nothing is approved without it.
function approvalBox(env, box, form) {
  const id = env.meta && env.meta.approval_id;
  const answer = async (yes, btn) => {
    btn.disabled = true;
    try {
      const out = await api("/api/approve", { approval_id: id, approve: yes });
      if (out.denied) box.replaceChildren(h("div", { class: "card", id: "denied", text: "Denied: " + out.tool + " did not run." }));
      else showEnvelope(box, out, form);
    } catch (e) { box.append(h("p", { class: "sev-error", text: String(e.message || e) })); }
  };
  const yes = h("button", { class: "danger", id: "approve", type: "button", text: "Approve and run" });
  const no = h("button", { id: "deny", type: "button", text: "Deny" });
  yes.addEventListener("click", () => answer(true, yes));
  no.addEventListener("click", () => answer(false, no));
  return h("div", { class: "card", id: "approval" },
    h("h3", { text: "This call needs your approval" }),
    h("p", { class: "muted", text: "Nothing was done yet. Read the preview; the call runs only if you approve it." }),
    h("pre", { class: "preview", text: pretty(env.data) }), yes, " ", no);
}

// ---------------------------------------------------------------- forms from JSON Schema
function resolve(s, root) {
  let out = s || {};
  for (let i = 0; i < 16 && out.$ref; i++) {
    const m = /^#\/(\$defs|definitions)\/(.+)$/.exec(out.$ref);
    const target = m && root[m[1]] && root[m[1]][decodeURIComponent(m[2])];
    if (!target) break;
    const rest = Object.assign({}, out);
    delete rest.$ref;
    out = Object.assign({}, target, rest);
  }
  return out;
}
// {schema, nullable}: `anyOf: [X, null]` and `type: [T, "null"]` become X / T, nullable.
function unwrap(s, root) {
  s = resolve(s, root);
  for (const key of ["anyOf", "oneOf"]) {
    const alts = s[key];
    if (Array.isArray(alts)) {
      const rest = alts.filter((a) => resolve(a, root).type !== "null");
      if (rest.length === 1 && rest.length < alts.length) {
        const inner = Object.assign({}, resolve(rest[0], root), { description: s.description || resolve(rest[0], root).description });
        return { schema: unwrap(inner, root).schema, nullable: true };
      }
    }
  }
  if (Array.isArray(s.type)) {
    const ts = s.type.filter((t) => t !== "null");
    if (ts.length === 1) return { schema: Object.assign({}, s, { type: ts[0] }), nullable: ts.length < s.type.length };
  }
  return { schema: s, nullable: false };
}
function enumValues(s, root) {
  if (Array.isArray(s.enum)) return s.enum.map((v) => ({ value: v, label: String(v) }));
  const alts = s.oneOf || s.anyOf;
  if (Array.isArray(alts) && alts.length && alts.every((a) => "const" in resolve(a, root))) {
    return alts.map((a) => { const r = resolve(a, root); return { value: r.const, label: String(r.const) + (r.description ? " — " + r.description : "") }; });
  }
  return null;
}

function buildForm(schema) {
  const root = schema;
  const fields = new Map();
  const fieldset = h("fieldset", { id: "form" });
  const top = node(schema, "", root, fields, true, "arguments");
  fieldset.append(top.el);
  return {
    fieldset,
    value: () => { const v = top.get(); return v === undefined ? {} : v; },
    set: (v) => top.set(v),
    clearErrors() {
      $("#form-errors").replaceChildren();
      fieldset.querySelectorAll(".field-error").forEach((e) => e.remove());
      fieldset.querySelectorAll(".has-error").forEach((e) => e.classList.remove("has-error"));
    },
    showErrors(errs, suggestion) {
      for (const f of errs) {
        let path = f.path || "";
        while (path && !fields.has(path)) path = path.slice(0, path.lastIndexOf("/"));
        const target = path ? fields.get(path) : null;
        const text = f.message + (f.received !== undefined ? " (received " + JSON.stringify(f.received) + ")" : "") +
          (Array.isArray(f.expected) ? "; expected: " + f.expected.join(", ") : "") +
          (errs.length === 1 && suggestion ? ". " + suggestion : "");
        const note = h("span", { class: "field-error", "data-problem": f.problem || "", text });
        if (target) { target.classList.add("has-error"); target.append(note); } else $("#form-errors").append(note);
      }
    },
  };
}

// One schema node as a form element: {el, get() -> value | undefined, set(value)}.
function node(rawSchema, path, root, fields, required, name) {
  const { schema: s, nullable } = unwrap(rawSchema, root);
  const choices = enumValues(s, root);
  const hint = [];
  if (s.minimum !== undefined || s.maximum !== undefined) hint.push("range " + (s.minimum ?? "−∞") + " … " + (s.maximum ?? "∞"));
  if (s.minLength !== undefined || s.maxLength !== undefined) hint.push("length " + (s.minLength ?? 0) + " … " + (s.maxLength ?? "∞"));
  if (s.default !== undefined) hint.push("default " + JSON.stringify(s.default));
  if (nullable) hint.push("may be null");
  const label = (txt) => h("label", {}, txt, required ? h("span", { class: "req", title: "required", text: "*" }) : null);
  const wrap = (input, extra) => {
    const el = h("div", { class: "field", "data-path": path }, label(name),
      s.description ? h("div", { class: "hint", text: s.description }) : null, input, extra || null,
      hint.length ? h("div", { class: "hint", text: hint.join(" · ") }) : null);
    fields.set(path, el);
    return el;
  };
  if (choices) {
    const sel = h("select", { name: path }, h("option", { value: "", text: required ? "— choose —" : "— not set —" }),
      choices.map((c, i) => h("option", { value: String(i), text: c.label })));
    return { el: wrap(sel), get: () => (sel.value === "" ? undefined : choices[Number(sel.value)].value),
      set: (v) => { const i = choices.findIndex((c) => c.value === v); sel.value = i < 0 ? "" : String(i); } };
  }
  if (s.type === "object" && s.properties) {
    const req = new Set(s.required || []);
    const kids = Object.entries(s.properties).map(([k, sub]) => [k, node(sub, path + "/" + k.replace(/~/g, "~0").replace(/\//g, "~1"), root, fields, req.has(k), k)]);
    const inner = kids.map(([, n]) => n.el);
    const el = path === "" ? h("div", { class: "field", "data-path": "" }, inner) : h("fieldset", { class: "field", "data-path": path }, h("legend", {}, label(name)), inner);
    fields.set(path, el);
    return { el, get: () => {
      const o = {}; let any = false;
      for (const [k, n] of kids) { const v = n.get(); if (v !== undefined) { o[k] = v; any = true; } }
      return any || path === "" || required ? o : undefined;
    }, set: (v) => { for (const [k, n] of kids) n.set(v && typeof v === "object" ? v[k] : undefined); } };
  }
  if (s.type === "array" && s.items && !Array.isArray(s.items)) {
    const items = [];
    const list = h("div", { class: "array-items" });
    const add = (v) => {
      const n = node(s.items, path + "/" + items.length, root, fields, true, name + "[" + items.length + "]");
      const row = h("div", { class: "array-item" }, h("div", {}, n.el));
      const entry = { n, row };
      row.append(h("button", { type: "button", text: "✕", title: "remove", onclick: () => { items.splice(items.indexOf(entry), 1); row.remove(); } }));
      items.push(entry); list.append(row);
      if (v !== undefined) n.set(v);
    };
    const el = wrap(list, h("button", { type: "button", text: "+ item", onclick: () => add() }));
    return { el, get: () => (items.length ? items.map((e) => e.n.get()) : undefined),
      set: (v) => { items.splice(0).forEach((e) => e.row.remove()); if (Array.isArray(v)) v.forEach(add); } };
  }
  if (s.type === "boolean") {
    const sel = h("select", { name: path }, ["", "true", "false"].map((v) => h("option", { value: v, text: v || "— not set —" })));
    return { el: wrap(sel), get: () => (sel.value === "" ? undefined : sel.value === "true"), set: (v) => { sel.value = v === true ? "true" : v === false ? "false" : ""; } };
  }
  if (s.type === "integer" || s.type === "number") {
    const inp = h("input", { type: "number", name: path, min: s.minimum, max: s.maximum, step: s.type === "integer" ? "1" : "any", placeholder: s.default !== undefined ? String(s.default) : "" });
    return { el: wrap(inp), get: () => (inp.value === "" ? undefined : Number(inp.value)), set: (v) => { inp.value = typeof v === "number" ? String(v) : ""; } };
  }
  if (s.type === "string") {
    const inp = h("input", { type: "text", name: path, maxlength: s.maxLength, placeholder: s.default !== undefined ? String(s.default) : "" });
    return { el: wrap(inp), get: () => (inp.value === "" ? undefined : inp.value), set: (v) => { inp.value = typeof v === "string" ? v : ""; } };
  }
  // Anything else (unions, free-form): JSON text.
  const ta = h("textarea", { name: path, rows: 2, placeholder: "JSON value" });
  return { el: wrap(ta), get: () => { if (!ta.value.trim()) return undefined; try { return JSON.parse(ta.value); } catch (_) { return ta.value; } },
    set: (v) => { ta.value = v === undefined ? "" : JSON.stringify(v); } };
}

// ---------------------------------------------------------------- the agent, live
async function viewAgent() {
  const q = h("input", { type: "text", id: "agent-query", placeholder: "Ask something the tools can do, e.g. Convert 100 USD to EUR", value: "" });
  const go = h("button", { class: "primary", id: "agent-run", text: "Run" });
  const trace = h("div", { id: "trace" });
  const bar = h("form", { class: "agent-bar" }, q, go);
  bar.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    if (!q.value.trim()) return;
    go.disabled = true;
    trace.replaceChildren();
    try { await runAgent(q.value, trace); } catch (e) { trace.append(h("div", { class: "ev ev-failed", text: String(e.message || e) })); }
    finally { go.disabled = false; }
  });
  main().replaceChildren(h("h2", { text: "Run the agent" }),
    h("p", { class: "muted", text: "Steps stream here as they happen: routing, each model turn, each call with its envelope, corrections, the answer." }),
    bar, trace);
  q.focus();
}

async function runAgent(query, trace) {
  const res = await fetch("/api/agent", { method: "POST", credentials: "same-origin", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ query }) });
  if (!res.ok) { let m = await res.text(); try { m = JSON.parse(m).error; } catch (_) { /* text */ } throw new Error(m); }
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  const state = { failedTools: new Set(), trace, pending: null };
  let buf = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buf += decoder.decode(value, { stream: true });
    let cut;
    while ((cut = buf.indexOf("\n\n")) >= 0) {
      const block = buf.slice(0, cut);
      buf = buf.slice(cut + 2);
      let event = "message";
      const data = [];
      for (const line of block.split("\n")) {
        if (line.startsWith("event:")) event = line.slice(6).trim();
        else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
      }
      if (data.length) onEvent(event, JSON.parse(data.join("\n")), state);
    }
  }
}

function onEvent(kind, d, st) {
  const add = (cls, ...kids) => { const el = h("div", { class: "ev " + cls }, kids); st.trace.append(el); return el; };
  if (kind === "queued") add("ev-model", d.message);
  else if (kind === "started") add("ev-model", h("span", { class: "t", text: "Run " + d.run_id }), " on ", h("code", { text: d.provider }));
  else if (kind === "routed") {
    const c = d.candidates;
    add("ev-routed", h("span", { class: "t", text: "Routed" }), " · tools offered: ", d.offered.join(", "),
      c ? h("ol", { class: "candidates" }, c.map((x) => h("li", {}, h("code", { text: x.name }), " score " + fmt(x.score) + (x.similarity != null ? " · sim " + fmt(x.similarity, 2) : "")))) : null);
  } else if (kind === "model_started") st.pending = add("ev-model", h("span", { class: "t", text: "Model step " + d.step }), " … thinking");
  else if (kind === "model_finished") {
    const r = d.reply || {};
    const u = r.usage ? " · " + r.usage.input_tokens + " → " + r.usage.output_tokens + " tokens" : "";
    const el = h("div", { class: "ev ev-model step" }, h("span", { class: "t", text: "Model step " + d.step }), " · " + d.ms + " ms" + u,
      r.thought ? h("div", { class: "small", text: "thought: " + r.thought }) : null,
      r.text ? h("div", { text: r.text }) : null,
      (r.tool_calls || []).length ? h("div", { class: "small", text: "asks for: " + r.tool_calls.map((c) => c.name).join(", ") }) : null,
      (r.notes || []).map((n) => h("div", { class: "small", text: "note: " + n })));
    if (st.pending) st.pending.replaceWith(el); else st.trace.append(el);
    st.pending = null;
  } else if (kind === "call_started") st.pending = add("ev-call running", h("span", { class: "t", text: "→ " + d.label }), " ", h("code", { text: d.call.name + " " + JSON.stringify(d.call.arguments) }), " …");
  else if (kind === "call_finished") {
    const rec = d.record, env = rec.envelope;
    const correction = st.failedTools.has(rec.call.name);
    if (env.status === "error") st.failedTools.add(rec.call.name); else st.failedTools.delete(rec.call.name);
    const box = h("div");
    showEnvelope(box, env, null);
    const el = h("div", { class: "ev ev-call" + (env.status === "error" ? " failed" : ""), "data-tool": rec.call.name },
      h("span", { class: "t", text: (correction ? "↻ correction: " : "→ ") + rec.label }), " ",
      h("code", { text: rec.call.name + " " + JSON.stringify(rec.call.arguments) }), box);
    if (st.pending && st.pending.classList.contains("ev-call")) st.pending.replaceWith(el); else st.trace.append(el);
    st.pending = null;
  } else if (kind === "done") {
    const t = d.trace;
    add("ev-answer", h("div", { class: "t", text: t.answer ? "Answer" : "No answer (" + t.stop.reason + ")" }),
      h("div", { id: "answer", text: t.answer || (t.stop.message || "") }),
      h("div", { class: "small", text: (t.total_ms / 1000).toFixed(1) + " s: model " + (t.model_ms / 1000).toFixed(1) + " s, tools " + t.tools_ms + " ms; " + t.usage.input_tokens + " → " + t.usage.output_tokens + " tokens; " + t.provider }),
      h("a", { id: "download-trace", href: "/api/traces/" + encodeURIComponent(d.run_id), download: "trace-" + d.run_id + ".json", text: "Download the trace (the JSON of `toolwright run --json`)" }));
  } else if (kind === "failed") add("ev-failed", h("span", { class: "t", text: "The agent could not start: " }), d.message);
}

// ---------------------------------------------------------------- metrics
async function viewMetrics() {
  const m = await api("/api/metrics");
  const refresh = h("button", { text: "Refresh", onclick: () => viewMetrics() });
  if (!m.tools.length) { main().replaceChildren(h("h2", { text: "Metrics" }), h("p", { class: "muted", text: "No calls yet in this session." }), refresh); return; }
  const max = Math.max(1, ...m.tools.map((t) => t.calls));
  const W = 520, rowH = 18;
  const svg = `<svg class="chart" width="${W + 200}" height="${m.tools.length * rowH + 4}" role="img" aria-label="calls per tool">` +
    m.tools.map((t, i) => {
      const errs = Object.values(t.errors).reduce((a, b) => a + b, 0);
      const w = Math.round((t.calls / max) * W), we = Math.round((errs / max) * W);
      return `<text x="0" y="${i * rowH + 13}">${esc(t.tool)}</text><rect class="bar" x="190" y="${i * rowH + 3}" width="${w}" height="12"></rect>` +
        `<rect class="bar err" x="190" y="${i * rowH + 3}" width="${we}" height="12"></rect><text x="${196 + w}" y="${i * rowH + 13}">${t.calls}${errs ? " (" + errs + " failed)" : ""}</text>`;
    }).join("") + "</svg>";
  const chart = h("div", { class: "card" }, h("h3", { text: "Calls per tool (red: failed)" }));
  chart.insertAdjacentHTML("beforeend", svg);
  const table = h("table", { id: "metrics" },
    h("tr", {}, ["tool", "calls", "errors", "p50", "p90", "p99", "mean", "latency histogram"].map((c) => h("th", { text: c }))),
    m.tools.map((t) => h("tr", {},
      h("td", {}, h("code", { text: t.tool })), h("td", { class: "num", text: t.calls }),
      h("td", { text: Object.entries(t.errors).map(([k, v]) => k + " ×" + v).join(", ") || "–" }),
      ["p50_ms", "p90_ms", "p99_ms", "mean_ms"].map((k) => h("td", { class: "num", text: t[k] == null ? "–" : "≤" + t[k] + " ms" })),
      h("td", {}, sparkline(t.histogram, m.buckets_ms)))));
  main().replaceChildren(h("h2", { text: "Metrics" }), h("p", { class: "muted", text: "This session's calls (the page's and the agent's), from the runtime's metrics. Latency percentiles are bucket upper bounds." }), refresh, chart, table);
}
function esc(s) { return String(s).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[c])); }
function sparkline(counts, bounds) {
  const max = Math.max(1, ...counts);
  const span = h("span");
  span.insertAdjacentHTML("beforeend", `<svg class="chart" width="${counts.length * 9}" height="22" role="img" aria-label="latency histogram">` +
    counts.map((c, i) => `<rect class="bar" x="${i * 9}" y="${20 - Math.round((c / max) * 18)}" width="7" height="${Math.round((c / max) * 18) + 1}"><title>${i < bounds.length ? "≤" + bounds[i] : ">" + bounds[bounds.length - 1]} ms: ${c}</title></rect>`).join("") + "</svg>");
  return span;
}
