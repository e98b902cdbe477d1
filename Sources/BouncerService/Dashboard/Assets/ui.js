// What every page uses: the texts of the page's locale, an element builder, the status line, and
// how times and numbers are shown.

// The dashboard's texts came with the page, in the locale the server chose for this browser.
const strings = JSON.parse(document.getElementById("strings").textContent);
const locale = document.documentElement.lang || "en";

/// The text for `key`, its placeholders (`%@`, `%d`, `%1$@`, `%2$d`) filled from `args` in order
/// or by their numbers, as the catalogs' iOS format has them.
export function t(key, ...args) {
  const text = strings[key] ?? key;
  let next = 0;
  return text.replace(/%(?:(\d+)\$)?([@d%])/g, (whole, position, kind) => {
    if (kind === "%") return "%";
    const value = args[position ? Number(position) - 1 : next++];
    return kind === "d" ? formatNumber(value) : String(value ?? "");
  });
}

/// `t` as nodes: each filled-in value in a `bdi`, so that an id or a time written left to right
/// keeps its order inside a right-to-left sentence (and the other way round).
export function tIsolated(key, ...args) {
  const text = strings[key] ?? key;
  const parts = [];
  let next = 0;
  let at = 0;
  for (const match of text.matchAll(/%(?:(\d+)\$)?([@d%])/g)) {
    parts.push(text.slice(at, match.index));
    at = match.index + match[0].length;
    const [, position, kind] = match;
    if (kind === "%") { parts.push("%"); continue; }
    const value = args[position ? Number(position) - 1 : next++];
    parts.push(el("bdi", {}, kind === "d" ? formatNumber(value) : String(value ?? "")));
  }
  parts.push(text.slice(at));
  return parts.filter((part) => part !== "");
}

/// A line of values joined by " · ", each in a `bdi` (see `tIsolated`); strings and nodes alike.
export const metaLine = (...values) => values.filter((value) => value !== null && value !== undefined && value !== "")
  .flatMap((value, index) => [index ? " · " : null, typeof value === "string" ? el("bdi", {}, value) : value])
  .filter((part) => part !== null);

/// Fills every `data-i18n` element's text (and `data-i18n-label`, `data-i18n-placeholder`).
export function translate(root = document) {
  for (const node of root.querySelectorAll("[data-i18n]")) node.textContent = t(node.dataset.i18n);
  for (const node of root.querySelectorAll("[data-i18n-label]")) node.setAttribute("aria-label", t(node.dataset.i18nLabel));
  for (const node of root.querySelectorAll("[data-i18n-placeholder]")) node.placeholder = t(node.dataset.i18nPlaceholder);
}

/// An element: `el("li", { class: "x", dataset: { id } }, child, "text", …)`. Text is always
/// set as text, never parsed as HTML: messages are what users wrote.
export function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === "dataset") Object.assign(node.dataset, value);
    else if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else if (name === "class") node.className = value;
    else node.setAttribute(name, value === true ? "" : value);
  }
  node.append(...children.flat(Infinity).filter((child) => child !== null && child !== undefined && child !== false));
  return node;
}

/// Announces an outcome in the status line (read out by screen readers).
export function say(text, isError = false) {
  const status = document.getElementById("status");
  status.textContent = text;
  status.classList.toggle("error", isError);
}

export function sayError(error) { say(t("dashboard.common.error", error.message), true); }

const numbers = new Intl.NumberFormat(locale);
export const formatNumber = (value) => (typeof value === "number" ? numbers.format(value) : String(value ?? ""));

const times = new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeStyle: "short" });
export const formatTime = (iso) => (iso ? times.format(new Date(iso)) : "");

export const formatPercent = (share) =>
  share === null || share === undefined ? "–" : new Intl.NumberFormat(locale, { style: "percent" }).format(share);

/// `text` with the spans of `matches` (UTF-16 offsets, as the API gives them) in `mark`s.
export function highlighted(text, matches) {
  const spans = matches
    .map((match) => [match.utf16_start, match.utf16_end])
    .filter(([start, end]) => end > start)
    .sort((a, b) => a[0] - b[0]);
  const parts = [];
  let at = 0;
  for (const [start, end] of spans) {
    if (start < at) continue; // overlapping spans: the first is shown
    parts.push(text.slice(at, start), el("mark", {}, text.slice(start, end)));
    at = end;
  }
  parts.push(text.slice(at));
  return parts;
}

/// Runs `work` after `wait` ms of quiet: for searches and the test box, one request per pause
/// in typing rather than one per key.
export function debounced(work, wait = 200) {
  let timer;
  return (...args) => {
    clearTimeout(timer);
    timer = setTimeout(() => work(...args), wait);
  };
}

/// Empties `node` and puts `children` in it.
export function fill(node, ...children) {
  node.replaceChildren(...children.flat(Infinity).filter((child) => child !== null && child !== undefined));
}

export const nothing = () => el("p", { class: "hint" }, t("dashboard.common.none"));
