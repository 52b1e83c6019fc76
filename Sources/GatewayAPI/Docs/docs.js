// BrokerGateway API docs: fetches this gateway's /openapi.json and draws it, with a "Try it" form per operation.
// Plain JavaScript, no framework, no build step. Every text from the document or an answer is set as text
// (textContent, text nodes), never parsed as HTML. The key lives in sessionStorage (this tab only) under the
// dashboard's name, is sent only as an Authorization header to this gateway, never put in a URL, never logged.
"use strict";

(() => {
  const KEY_STORAGE = "brokergateway.apiKey";
  const METHODS = ["get", "put", "post", "patch", "delete"];
  const REQUEST_TIMEOUT_MS = 30000;
  /** The answer headers worth showing: what the body is, the request's id, when to retry, whether it was replayed. */
  const SHOWN_HEADERS = ["Content-Type", "X-Request-ID", "Retry-After", "Idempotent-Replayed", "Allow", "Location"];
  /** How deep a request body skeleton follows nested objects (the document has no cycles today; this bounds one). */
  const SKELETON_DEPTH = 4;

  const $ = (id) => document.getElementById(id);
  const view = {
    title: $("api-title"), version: $("api-version"), description: $("api-description"), groups: $("groups"),
    toc: $("toc-list"), filter: $("filter"), banner: $("banner"),
    keyForm: $("key-form"), keyInput: $("api-key"), keyForget: $("key-forget"), keyState: $("key-state"),
  };

  let doc = null;

  // ---- small helpers

  function el(tag, attributes, ...children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attributes || {})) {
      if (value === undefined || value === null || value === false) continue;
      if (name === "class") node.className = value;
      else node.setAttribute(name, String(value));
    }
    for (const child of children) {
      if (child === null || child === undefined || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  /** Inline text with `backticks` shown as code, built from text nodes (never parsed as HTML). */
  function inline(text) {
    const parts = String(text).split("`");
    const fragment = document.createDocumentFragment();
    parts.forEach((part, index) => {
      if (!part) return;
      // An unmatched last backtick leaves an odd count: its text stays plain.
      const isCode = index % 2 === 1 && index < parts.length - 1;
      fragment.append(isCode ? el("code", null, part) : document.createTextNode(part));
    });
    return fragment;
  }

  /** A description (Markdown-ish): paragraphs at blank lines, "- " lines as a list, backticks as code. */
  function prose(text, className) {
    const box = el("div", { class: className || "description" });
    if (!text) return box;
    for (const block of String(text).split(/\n\s*\n/)) {
      const lines = block.split("\n").filter((line) => line.trim() !== "");
      if (lines.length && lines.every((line) => /^\s*[-*] /.test(line))) {
        box.append(el("ul", null, ...lines.map((line) => el("li", null, inline(line.replace(/^\s*[-*] /, ""))))));
      } else if (lines.length) {
        box.append(el("p", null, inline(lines.join("\n"))));
      }
    }
    return box;
  }

  function showBanner(message) {
    view.banner.textContent = message;
    view.banner.hidden = !message;
  }

  // ---- the key (shared with the dashboard: the same sessionStorage name)

  let memoryKey = null;

  function storedKey() {
    if (memoryKey) return memoryKey;
    try { return sessionStorage.getItem(KEY_STORAGE); } catch { return null; }
  }

  function storeKey(key) {
    memoryKey = key;
    try { sessionStorage.setItem(KEY_STORAGE, key); } catch { /* private mode: kept in memory only */ }
  }

  function forgetKey() {
    memoryKey = null;
    try { sessionStorage.removeItem(KEY_STORAGE); } catch { /* nothing stored */ }
  }

  function showKeyState() {
    const key = storedKey();
    view.keyForget.hidden = !key;
    view.keyState.textContent = key
      ? "A key is set for this tab; operations that need one send it."
      : "No key: only the operations that need none answer.";
  }

  view.keyForm.addEventListener("submit", (event) => {
    event.preventDefault();
    const key = view.keyInput.value.trim();
    view.keyInput.value = "";
    if (!key) { view.keyState.textContent = "Enter a key first."; return; }
    storeKey(key);
    showKeyState();
  });

  view.keyForget.addEventListener("click", () => { forgetKey(); showKeyState(); });

  // ---- the document

  /** The value a local `$ref` ("#/components/schemas/Order") points at, or null. */
  function resolvePointer(ref) {
    if (typeof ref !== "string" || !ref.startsWith("#/")) return null;
    let node = doc;
    for (const raw of ref.slice(2).split("/")) {
      const key = raw.replace(/~1/g, "/").replace(/~0/g, "~");
      if (node === null || typeof node !== "object" || !(key in node)) return null;
      node = node[key];
    }
    return node;
  }

  function refName(ref) {
    return String(ref).split("/").pop();
  }

  /** Follows `$ref`s (a parameter, a response, a schema) to the object itself. */
  function deref(value) {
    let current = value;
    for (let hops = 0; current && typeof current === "object" && typeof current.$ref === "string" && hops < 16; hops++) {
      const target = resolvePointer(current.$ref);
      if (!target) return current;
      // Siblings of a $ref (a property's own description) win over the target's.
      const { $ref, ...siblings } = current;
      current = Object.assign({}, target, siblings);
    }
    return current;
  }

  /** A schema that is only a wrapper of one other (`allOf: [X]` with a description) is that other. */
  function unwrap(schema) {
    if (schema && Array.isArray(schema.allOf) && schema.allOf.length === 1 && !schema.properties) {
      return Object.assign({}, schema.allOf[0], schema.description ? { description: schema.description } : {});
    }
    return schema;
  }

  /** A short name for a schema's type: its component name, `array of X`, `string | null`, `X or Y`. */
  function typeLabel(schema) {
    if (!schema || typeof schema !== "object") return "any";
    schema = unwrap(schema);
    if (typeof schema.$ref === "string") return refName(schema.$ref);
    for (const key of ["oneOf", "anyOf"]) {
      if (Array.isArray(schema[key])) return schema[key].map(typeLabel).join(" or ");
    }
    if (Array.isArray(schema.allOf)) return schema.allOf.map(typeLabel).join(" and ");
    const types = Array.isArray(schema.type) ? schema.type : (schema.type ? [schema.type] : []);
    const named = types.map((type) => {
      if (type === "array") return `array of ${typeLabel(schema.items)}`;
      if (type === "object" && schema.additionalProperties && typeof schema.additionalProperties === "object") {
        return `map of ${typeLabel(schema.additionalProperties)}`;
      }
      return type;
    });
    let label = named.length ? named.join(" | ") : (schema.properties ? "object" : "any");
    // A small inline envelope is named by its fields: `{ data: Order }` says more than `object`.
    const fields = schema.properties && typeof schema.properties === "object" ? Object.entries(schema.properties) : [];
    if (label === "object" && fields.length > 0 && fields.length <= 3) {
      label = `{ ${fields.map(([name, field]) => `${name}: ${typeLabel(field)}`).join(", ")} }`;
    }
    if (schema.format) label += ` (${schema.format})`;
    return label;
  }

  function counted(count, noun) {
    return `${count} ${noun}${count === 1 ? "" : "s"}`;
  }

  /**
   * Constraints worth knowing before sending: enum values, pattern, lengths, bounds, default; an `anyOf`'s or
   * `oneOf`'s per branch (an open enum's known values, then its rule), a few levels deep.
   */
  function constraints(schema, depth = 0) {
    const resolved = deref(unwrap(schema || {}));
    const notes = [];
    for (const key of ["oneOf", "anyOf"]) {
      if (!Array.isArray(resolved[key]) || depth > 2) continue;
      const branches = resolved[key].map((branch) => constraints(branch, depth + 1).join(", ")).filter(Boolean);
      if (branches.length) notes.push(branches.join(" or "));
    }
    if (Array.isArray(resolved.enum)) notes.push(`one of: ${resolved.enum.map((value) => JSON.stringify(value)).join(", ")}`);
    if (resolved.pattern) notes.push(`pattern ${resolved.pattern}`);
    if (resolved.minLength !== undefined) notes.push(`at least ${counted(resolved.minLength, "character")}`);
    if (resolved.maxLength !== undefined) notes.push(`at most ${counted(resolved.maxLength, "character")}`);
    if (resolved.minimum !== undefined) notes.push(`minimum ${resolved.minimum}`);
    if (resolved.maximum !== undefined) notes.push(`maximum ${resolved.maximum}`);
    if (resolved.minItems !== undefined) notes.push(`at least ${counted(resolved.minItems, "item")}`);
    if (resolved.maxItems !== undefined) notes.push(`at most ${counted(resolved.maxItems, "item")}`);
    if (resolved.default !== undefined) notes.push(`default ${JSON.stringify(resolved.default)}`);
    return notes;
  }

  /** The schema whose fields can be listed (an object after `$ref`s and one-element `allOf`s), or null. */
  function objectSchema(schema) {
    const resolved = deref(unwrap(deref(schema)));
    return resolved && typeof resolved.properties === "object" ? resolved : null;
  }

  /** The schema an array's items or a map's values are, when that one has fields. */
  function nestedSchema(schema) {
    const resolved = deref(unwrap(deref(schema)));
    if (!resolved) return null;
    if (objectSchema(resolved)) return resolved;
    if (resolved.items) return nestedSchema(resolved.items);
    if (resolved.additionalProperties && typeof resolved.additionalProperties === "object") {
      return nestedSchema(resolved.additionalProperties);
    }
    return null;
  }

  /**
   * A schema's fields as a table; a field that is itself an object (or a list or map of them) opens into its own
   * table when asked (drawn then, so a large or self-referring schema costs nothing until read).
   */
  function schemaView(schema, trail) {
    const box = el("div", { class: "schema" });
    const resolved = deref(unwrap(schema));
    if (!resolved || typeof resolved !== "object") return box;
    if (resolved.description && trail.length === 0) box.append(prose(resolved.description));
    for (const key of ["oneOf", "anyOf"]) {
      if (Array.isArray(resolved[key])) {
        box.append(el("p", { class: "small" }, `One of ${resolved[key].length}:`));
        for (const branch of resolved[key]) box.append(expander(branch, trail));
      }
    }
    const object = objectSchema(resolved);
    if (!object) {
      const nested = nestedSchema(resolved);
      box.append(el("p", { class: "small" }, el("span", { class: "type" }, typeLabel(schema))));
      const notes = constraints(resolved);
      if (notes.length) box.append(el("p", { class: "small muted" }, notes.join("; ")));
      if (nested && nested !== resolved) box.append(expander(nested, trail));
      return box;
    }
    const required = new Set(Array.isArray(object.required) ? object.required : []);
    const rows = Object.entries(object.properties).map(([name, property]) => {
      const cell = el("td", null, prose(deref(property).description || "", "description small"));
      const notes = constraints(property);
      if (notes.length) cell.append(el("p", { class: "small muted" }, notes.join("; ")));
      const nested = nestedSchema(property);
      if (nested) cell.append(expander(nested, trail.concat(name), typeLabel(property)));
      return el("tr", null,
        el("td", null, el("code", null, name), required.has(name) ? el("span", { class: "required" }, " required") : null),
        el("td", { class: "type" }, typeLabel(property)),
        cell);
    });
    box.append(el("table", { class: "fields" },
      el("thead", null, el("tr", null, el("th", { scope: "col" }, "Field"), el("th", { scope: "col" }, "Type"),
        el("th", { scope: "col" }, "Description"))),
      el("tbody", null, ...rows)));
    const additional = object.additionalProperties === false
      ? "No other field is accepted (an unknown field is a 400 naming it)." : null;
    if (additional && trail.length === 0) box.append(el("p", { class: "small muted" }, additional));
    return box;
  }

  /** A collapsed view of a nested schema, drawn when opened. */
  function expander(schema, trail, label) {
    const name = label || typeLabel(schema);
    const details = el("details", { class: "nested" }, el("summary", null, `${name} fields`));
    if (trail.length > 12) return el("span", { class: "muted small" }, name);
    details.addEventListener("toggle", () => {
      if (details.open && details.childElementCount === 1) details.append(schemaView(schema, trail.concat(name)));
    });
    return details;
  }

  // ---- operations

  function operationsOf(api) {
    const operations = [];
    for (const [path, item] of Object.entries(api.paths || {})) {
      if (!item || typeof item !== "object") continue;
      const shared = Array.isArray(item.parameters) ? item.parameters : [];
      for (const method of METHODS) {
        const operation = item[method];
        if (!operation || typeof operation !== "object") continue;
        const byKey = new Map();
        for (const parameter of shared.concat(Array.isArray(operation.parameters) ? operation.parameters : [])) {
          const resolved = deref(parameter);
          if (resolved && resolved.name && resolved.in) byKey.set(`${resolved.in}:${resolved.name}`, resolved);
        }
        operations.push({
          path, method, operation, parameters: [...byKey.values()],
          id: operation.operationId || `${method}-${path}`,
          group: groupOf(path, operation),
        });
      }
    }
    return operations;
  }

  /** An operation's first tag, or its path's resource (`/v1/orders/{id}` is in `/v1/orders`). */
  function groupOf(path, operation) {
    if (Array.isArray(operation.tags) && operation.tags.length) return String(operation.tags[0]);
    const segments = path.split("/").filter(Boolean);
    if (segments.length >= 2 && /^v[0-9]+$/.test(segments[0])) return `/${segments[0]}/${segments[1]}`;
    return "Service";
  }

  /** The security requirements in force: the operation's own, else the document's. */
  function securityOf(operation) {
    return Array.isArray(operation.security) ? operation.security : (Array.isArray(doc.security) ? doc.security : []);
  }

  function securityText(requirements) {
    if (requirements.length === 0) return "No key needed.";
    const each = requirements.map((requirement) => Object.entries(requirement)
      .map(([scheme, scopes]) => `${scheme === "apiKey" ? "an API key" : scheme === "session" ? "a session's access token" : scheme}`
        + (Array.isArray(scopes) && scopes.length ? ` with scope ${scopes.join(", ")}` : ""))
      .join(" and "));
    return `Needs ${each.join(", or ")}.`;
  }

  function isStream(operation) {
    return Object.values(operation.responses || {}).some((response) => {
      const content = deref(response).content;
      return content && typeof content === "object" && "text/event-stream" in content;
    });
  }

  function jsonBodySchema(operation) {
    const body = deref(operation.requestBody);
    const content = body && body.content;
    if (!content || !content["application/json"]) return null;
    return { schema: content["application/json"].schema || {}, required: body.required === true, description: body.description };
  }

  function parametersView(parameters) {
    if (!parameters.length) return null;
    return el("section", { class: "part" },
      el("h4", null, "Parameters"),
      el("table", { class: "fields" },
        el("thead", null, el("tr", null, el("th", { scope: "col" }, "Name"), el("th", { scope: "col" }, "In"),
          el("th", { scope: "col" }, "Type"), el("th", { scope: "col" }, "Description"))),
        el("tbody", null, ...parameters.map((parameter) => {
          const cell = el("td", null, prose(parameter.description || "", "description small"));
          const notes = constraints(parameter.schema);
          if (notes.length) cell.append(el("p", { class: "small muted" }, notes.join("; ")));
          return el("tr", null,
            el("td", null, el("code", null, parameter.name),
              parameter.required ? el("span", { class: "required" }, " required") : null),
            el("td", null, parameter.in),
            el("td", { class: "type" }, typeLabel(parameter.schema)),
            cell);
        }))));
  }

  function requestBodyView(operation) {
    const body = jsonBodySchema(operation);
    if (!body) return null;
    return el("section", { class: "part" },
      el("h4", null, "Request body ", el("span", { class: "type" }, typeLabel(body.schema)),
        body.required ? el("span", { class: "required" }, " required") : null),
      body.description ? prose(body.description) : null,
      schemaView(body.schema, []));
  }

  function responsesView(operation) {
    const entries = Object.entries(operation.responses || {});
    if (!entries.length) return null;
    const list = el("dl", { class: "responses" });
    for (const [status, raw] of entries) {
      const response = deref(raw) || {};
      const named = raw && raw.$ref ? ` (${refName(raw.$ref)})` : "";
      const body = el("dd", null, prose(response.description || "", "description small"));
      for (const [type, media] of Object.entries(response.content || {})) {
        const schema = media && media.schema;
        const line = el("p", { class: "small" }, el("code", null, type), " ",
          schema ? el("span", { class: "type" }, typeLabel(schema)) : null);
        body.append(line);
        if (schema && (objectSchema(schema) || nestedSchema(schema))) body.append(expander(schema, [], typeLabel(schema)));
      }
      const headers = Object.entries(response.headers || {});
      if (headers.length) {
        body.append(el("ul", { class: "headers small" }, ...headers.map(([name, header]) =>
          el("li", null, el("code", null, name), ": ", inline(deref(header).description || "")))));
      }
      list.append(el("dt", { class: `status status-${String(status).charAt(0)}` }, status, named), body);
    }
    return el("section", { class: "part" }, el("h4", null, "Responses"), list);
  }

  // ---- "Try it"

  /** A JSON value of the schema's shape to start a request body from: required fields, first enum values. */
  function skeleton(schema, depth) {
    const resolved = deref(unwrap(deref(schema)));
    if (!resolved || typeof resolved !== "object" || depth > SKELETON_DEPTH) return null;
    if (resolved.default !== undefined) return resolved.default;
    if (Array.isArray(resolved.enum) && resolved.enum.length) return resolved.enum[0];
    for (const key of ["oneOf", "anyOf"]) {
      if (Array.isArray(resolved[key]) && resolved[key].length) return skeleton(resolved[key][0], depth + 1);
    }
    if (resolved.properties) {
      const value = {};
      const required = Array.isArray(resolved.required) ? resolved.required : [];
      for (const name of required) value[name] = skeleton(resolved.properties[name], depth + 1);
      return value;
    }
    const type = Array.isArray(resolved.type) ? resolved.type.find((each) => each !== "null") : resolved.type;
    switch (type) {
      case "string": return "";
      case "integer": case "number": return 0;
      case "boolean": return false;
      case "array": return [];
      case "object": return {};
      default: return null;
    }
  }

  function newIdempotencyKey() {
    return (crypto.randomUUID && crypto.randomUUID()) || `${Date.now()}-${Math.random().toString(16).slice(2)}`;
  }

  /** Indents JSON text without parsing its numbers, so a long number is shown digit for digit. */
  function prettyJSON(text) {
    let out = "";
    let depth = 0;
    let inString = false;
    let escaped = false;
    const newline = () => "\n" + "  ".repeat(depth);
    for (let index = 0; index < text.length; index++) {
      const char = text[index];
      if (inString) {
        out += char;
        if (escaped) escaped = false;
        else if (char === "\\") escaped = true;
        else if (char === "\"") inString = false;
        continue;
      }
      if (/\s/.test(char)) continue;
      if (char === "\"") { inString = true; out += char; continue; }
      if (char === "{" || char === "[") {
        const rest = text.slice(index + 1).trimStart();
        if (rest[0] === (char === "{" ? "}" : "]")) {
          out += char + rest[0];
          index = text.length - rest.length;
          continue;
        }
        depth += 1;
        out += char + newline();
      } else if (char === "}" || char === "]") {
        depth = Math.max(0, depth - 1);
        out += newline() + char;
      } else if (char === ",") {
        out += char + newline();
      } else if (char === ":") {
        out += ": ";
      } else {
        out += char;
      }
    }
    return out;
  }

  function field(id, labelText, input, note) {
    return el("div", { class: "field" }, el("label", { for: id }, labelText), input, note ? el("span", { class: "small muted" }, note) : null);
  }

  function tryItView(entry) {
    const { operation, parameters, method, path, id } = entry;
    const box = el("section", { class: "part try" }, el("h4", null, "Try it"));
    if (isStream(operation)) {
      box.append(el("p", { class: "small muted" },
        "Not tried here: an event stream answers until the client closes it, and a browser's EventSource cannot send ",
        "an Authorization header. Read it with ", el("code", null, "curl -N -H 'Authorization: Bearer …'"),
        " or a client that sends the key as a header."));
      return box;
    }
    const secured = securityOf(operation).length > 0;
    const form = el("form", { class: "try-form", autocomplete: "off" });
    const inputs = [];
    for (const parameter of parameters) {
      if (!["path", "query", "header"].includes(parameter.in)) continue;
      if (parameter.in === "header" && /^authorization$/i.test(parameter.name)) continue;
      const inputId = `${id}-${parameter.in}-${parameter.name}`;
      const resolvedSchema = deref(parameter.schema || {});
      // An open enum (`anyOf` of an enum and a string, as BrokerKind): free text, with the known values offered.
      const openEnum = Array.isArray(resolvedSchema.anyOf)
        ? resolvedSchema.anyOf.map(deref).find((branch) => branch && Array.isArray(branch.enum))
        : null;
      let input;
      let extra = null;
      if (Array.isArray(resolvedSchema.enum)) {
        input = el("select", { id: inputId }, el("option", { value: "" }, "(none)"),
          ...resolvedSchema.enum.map((value) => el("option", { value: String(value) }, String(value))));
      } else {
        input = el("input", {
          id: inputId, type: "text", spellcheck: "false", autocomplete: "off", required: parameter.in === "path",
          list: openEnum ? `${inputId}-known` : null,
        });
        if (openEnum) {
          extra = el("datalist", { id: `${inputId}-known` },
            ...openEnum.enum.map((value) => el("option", { value: String(value) })));
        }
      }
      if (parameter.in === "header" && /^idempotency-key$/i.test(parameter.name)) {
        input.value = newIdempotencyKey();
        extra = el("button", { type: "button", class: "link-button" }, "new key");
        extra.addEventListener("click", () => { input.value = newIdempotencyKey(); });
      }
      inputs.push({ parameter, input });
      const row = field(inputId, `${parameter.name} (${parameter.in}${parameter.required ? ", required" : ""})`, input);
      if (extra) row.append(extra);
      form.append(row);
    }
    const body = jsonBodySchema(operation);
    let bodyInput = null;
    if (body) {
      bodyInput = el("textarea", { id: `${id}-body`, rows: "8", spellcheck: "false" });
      bodyInput.value = JSON.stringify(skeleton(body.schema, 0), null, 2);
      form.append(field(`${id}-body`, "Body (JSON)", bodyInput, "required fields only; the table above lists the others"));
    }
    const send = el("button", { type: "submit" }, `Send ${method.toUpperCase()}`);
    const note = el("span", { class: "small muted" }, secured ? "sends the key" : "sends no key");
    form.append(el("div", { class: "actions" }, send, note));
    const result = el("div", { class: "result", "aria-live": "polite" });
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      sendRequest({ method, path, secured, inputs, bodyInput, bodyRequired: body ? body.required : false }, send, result);
    });
    box.append(form, result);
    return box;
  }

  /** Builds the request from the form, or says what is missing. */
  function buildRequest(spec) {
    let url = spec.path;
    const query = new URLSearchParams();
    const headers = new Headers({ Accept: "application/json" });
    for (const { parameter, input } of spec.inputs) {
      const value = input.value.trim();
      if (!value) {
        if (parameter.required) return { error: `${parameter.name} (${parameter.in}) is required.` };
        continue;
      }
      if (parameter.in === "path") url = url.split(`{${parameter.name}}`).join(encodeURIComponent(value));
      else if (parameter.in === "query") query.append(parameter.name, value);
      else headers.set(parameter.name, value);
    }
    if (/\{[^}]*\}/.test(url)) return { error: "Fill in every path parameter." };
    let body;
    if (spec.bodyInput) {
      const text = spec.bodyInput.value.trim();
      if (text) {
        try { JSON.parse(text); } catch (error) { return { error: `The body is not JSON: ${error.message}` }; }
        body = text;
        headers.set("Content-Type", "application/json");
      } else if (spec.bodyRequired) {
        return { error: "This operation needs a body." };
      }
    }
    if (spec.secured) {
      const key = storedKey();
      if (key) headers.set("Authorization", `Bearer ${key}`);
    }
    const search = query.toString();
    return { url: search ? `${url}?${search}` : url, headers, body };
  }

  async function sendRequest(spec, button, result) {
    result.replaceChildren();
    const request = buildRequest(spec);
    if (request.error) { result.append(el("p", { class: "error" }, request.error)); return; }
    if (spec.secured && !request.headers.has("Authorization")) {
      result.append(el("p", { class: "small muted" }, "No key set: this operation will answer 401. Enter one at the top."));
    }
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), REQUEST_TIMEOUT_MS);
    const started = performance.now();
    button.disabled = true;
    try {
      const response = await fetch(request.url, {
        method: spec.method.toUpperCase(), headers: request.headers, body: request.body,
        credentials: "omit", cache: "no-store", redirect: "manual", signal: controller.signal,
      });
      const text = await response.text();
      const elapsed = Math.round(performance.now() - started);
      result.append(el("p", { class: `status-line status-${String(response.status).charAt(0)}` },
        `${response.status} ${response.statusText}`.trim(), el("span", { class: "muted small" }, ` · ${elapsed} ms`)));
      const shown = SHOWN_HEADERS.filter((name) => response.headers.has(name));
      if (shown.length) {
        result.append(el("ul", { class: "headers small" },
          ...shown.map((name) => el("li", null, el("code", null, name), ": ", response.headers.get(name)))));
      }
      result.append(el("pre", { class: "body" }, formatBody(text, response.headers.get("Content-Type"))));
    } catch (error) {
      const message = error && error.name === "AbortError"
        ? `No answer within ${REQUEST_TIMEOUT_MS / 1000} s.` : `The request failed: ${error && error.message ? error.message : error}`;
      result.append(el("p", { class: "error" }, message));
    } finally {
      clearTimeout(timer);
      button.disabled = false;
    }
  }

  function formatBody(text, contentType) {
    if (!text) return "(no body)";
    if (contentType && /json/i.test(contentType)) {
      try { JSON.parse(text); return prettyJSON(text); } catch { return text; }
    }
    return text;
  }

  // ---- the page

  function operationView(entry) {
    const { operation, method, path, id } = entry;
    const details = el("details", { class: "operation", id: `op-${id}` },
      el("summary", null,
        el("span", { class: `method method-${method}` }, method.toUpperCase()), " ",
        el("code", { class: "path" }, path), " ",
        el("span", { class: "summary-text" }, operation.summary || "")));
    details.addEventListener("toggle", () => {
      if (!details.open || details.dataset.drawn) return;
      details.dataset.drawn = "yes";
      const parts = [
        el("p", { class: "small muted" }, el("code", null, id), " · ", securityText(securityOf(operation))),
        operation.description ? prose(operation.description) : null,
        parametersView(entry.parameters), requestBodyView(operation), responsesView(operation), tryItView(entry),
      ];
      details.append(...parts.filter(Boolean));
    });
    return details;
  }

  function render(api) {
    doc = api;
    const info = api.info || {};
    if (info.title) view.title.replaceChildren(info.title, " ", el("span", { class: "muted" }, "· docs"));
    view.version.textContent = [info.version ? `Version ${info.version}` : "", api.openapi ? `OpenAPI ${api.openapi}` : ""]
      .filter(Boolean).join(" · ");
    view.description.replaceChildren(prose(info.description || ""));
    const operations = operationsOf(api);
    const groups = new Map();
    for (const entry of operations) {
      if (!groups.has(entry.group)) groups.set(entry.group, []);
      groups.get(entry.group).push(entry);
    }
    view.groups.replaceChildren();
    view.toc.replaceChildren();
    for (const [name, entries] of groups) {
      const section = el("section", { class: "group" }, el("h2", null, name));
      const tocItems = el("ul");
      for (const entry of entries) {
        const item = operationView(entry);
        item.dataset.search = `${entry.method} ${entry.path} ${entry.operation.summary || ""} ${entry.id}`.toLowerCase();
        section.append(item);
        const link = el("a", { href: `#op-${entry.id}` }, el("span", { class: `method method-${entry.method}` }, entry.method.toUpperCase()), " ", entry.path);
        link.dataset.search = item.dataset.search;
        tocItems.append(el("li", null, link));
      }
      view.groups.append(section);
      view.toc.append(el("li", null, el("span", { class: "toc-group" }, name), tocItems));
    }
    openFromHash();
  }

  /** Opens the operation the address names (`/docs#op-placeOrder`), so links to one operation work. */
  function openFromHash() {
    const target = location.hash ? document.getElementById(decodeURIComponent(location.hash.slice(1))) : null;
    if (target && target.tagName === "DETAILS") {
      target.open = true;
      target.scrollIntoView();
    }
  }

  window.addEventListener("hashchange", openFromHash);

  view.filter.addEventListener("input", () => {
    const words = view.filter.value.toLowerCase().split(/\s+/).filter(Boolean);
    for (const node of document.querySelectorAll("[data-search]")) {
      const hidden = !words.every((word) => node.dataset.search.includes(word));
      (node.tagName === "A" ? node.parentElement : node).hidden = hidden;
    }
    for (const section of document.querySelectorAll(".group")) {
      section.hidden = ![...section.querySelectorAll("details.operation")].some((item) => !item.hidden);
    }
  });

  async function load() {
    showKeyState();
    try {
      const response = await fetch("/openapi.json", { headers: { Accept: "application/json" }, credentials: "omit", cache: "no-cache" });
      if (!response.ok) throw new Error(`/openapi.json answered ${response.status}`);
      render(await response.json());
    } catch (error) {
      showBanner(`The API document could not be loaded: ${error && error.message ? error.message : error}`);
    }
  }

  load();
})();
