// Activity: bounces, flags and decisions over the last 24 hours or 7 days, counted from the event
// log; the rules with most hits in that time; and the audit log.
import { get, segment } from "./api.js";
import { debounced, el, fill, formatNumber, formatTime, nothing, sayError, t } from "./ui.js";

const ranges = {
  "24h": { hours: 24, bucketHours: 1 },
  "7d": { hours: 24 * 7, bucketHours: 6 },
};
const charts = [
  { id: "chart-bounces", types: ["message.bounced"], label: "dashboard.activity.bounces" },
  { id: "chart-flags", types: ["message.flagged"], label: "dashboard.activity.flags" },
  { id: "chart-decisions", types: ["review.decided"], label: "dashboard.activity.decisions" },
];
/// Pages of events read at most for the charts (200 events a page): a busier period is shown
/// from its first events only, and its charts say so.
const maxPages = 100;
const $ = (id) => document.getElementById(id);
let loading = 0;

export function setUp() {
  $("activity-range").addEventListener("change", () => show());
  const reloadAudit = debounced(() => loadAudit(), 300);
  $("audit-actor").addEventListener("input", reloadAudit);
  $("audit-action").addEventListener("input", reloadAudit);
}

export function show() {
  const range = ranges[$("activity-range").value];
  const since = new Date(Date.now() - range.hours * 3600 * 1000);
  loadCharts(range, since);
  loadTopRules(since);
  loadAudit();
}

async function firstAfter(after) {
  const page = await get("/v1/events", { after, limit: 1 });
  return page.events[0] ?? null;
}

/// The id after which the events of `since` and later begin. Event ids grow with time, and the
/// API reads forward from an id, so the start is found by bisection: a few dozen small reads.
async function startAfter(since) {
  const first = await firstAfter(0);
  if (!first || first.created_at >= since) return 0;
  let low = first.id; // an event before `since`
  let high = Math.max(first.id * 2, first.id + 1024);
  for (let event = await firstAfter(high); event && event.created_at < since; event = await firstAfter(high)) {
    low = event.id;
    high = event.id * 2;
  }
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    const event = await firstAfter(middle);
    if (event && event.created_at < since) low = Math.max(event.id, middle);
    else high = middle;
  }
  return low;
}

async function loadCharts(range, since) {
  const ticket = ++loading;
  const bucketMs = range.bucketHours * 3600 * 1000;
  const buckets = range.hours / range.bucketHours;
  const counts = Object.fromEntries(charts.map((chart) => [chart.id, new Array(buckets).fill(0)]));
  const sinceISO = since.toISOString();
  let complete = true;
  try {
    let after = await startAfter(sinceISO);
    const types = charts.flatMap((chart) => chart.types);
    for (let page = 0; ; page++) {
      if (page === maxPages) { complete = false; break; }
      const answer = await get("/v1/events", { after, types: types.join(","), limit: 200 });
      if (ticket !== loading) return;
      for (const event of answer.events) {
        if (event.created_at < sinceISO) continue;
        const bucket = Math.min(buckets - 1, Math.floor((Date.parse(event.created_at) - since.getTime()) / bucketMs));
        for (const chart of charts) if (chart.types.includes(event.type)) counts[chart.id][bucket] += 1;
      }
      if (answer.events.length < 200) break;
      after = answer.next_after;
    }
    for (const chart of charts) draw($(chart.id), counts[chart.id], since, bucketMs, t(chart.label), complete);
  } catch (error) {
    sayError(error);
  }
}

/// A bar chart in `svg`: one bar a bucket, the total in its title (what a screen reader reads).
function draw(svg, values, since, bucketMs, label, complete) {
  const width = 300, height = 140, axis = 16;
  const most = Math.max(1, ...values);
  const total = values.reduce((sum, value) => sum + value, 0);
  const namespace = "http://www.w3.org/2000/svg";
  const node = (tag, attributes, text) => {
    const element = document.createElementNS(namespace, tag);
    for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, value);
    if (text !== undefined) element.textContent = text;
    return element;
  };
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  svg.dataset.total = String(total);
  const summary = `${label}: ${t("dashboard.activity.total", total)}${complete ? "" : " (…)"}`;
  const barWidth = width / values.length;
  svg.replaceChildren(
    node("title", {}, summary),
    node("line", { class: "axis", x1: 0, y1: height - axis, x2: width, y2: height - axis }),
    ...values.map((value, index) => {
      const barHeight = ((height - axis - 4) * value) / most;
      const rect = node("rect", { class: "bar-rect", x: index * barWidth + 1, y: height - axis - barHeight,
        width: Math.max(1, barWidth - 2), height: barHeight });
      rect.append(node("title", {}, `${formatTime(new Date(since.getTime() + index * bucketMs).toISOString())}: ${formatNumber(value)}`));
      return rect;
    }),
    node("text", { x: 2, y: height - 3 }, formatTime(since.toISOString())));
  // The total beside the chart, for everyone (the title is what assistive technology reads).
  const figure = svg.closest("figure");
  const caption = figure.querySelector(".total") ?? figure.appendChild(el("p", { class: "meta total" }));
  caption.textContent = summary;
}

async function loadTopRules(since) {
  try {
    const page = await get("/v1/rules/stats", { since: since.toISOString(), sort: "hits", limit: 10 });
    const top = page.stats.filter((stat) => stat.hits > 0);
    const named = await Promise.all(top.map((stat) => get(`/v1/rules/${segment(stat.rule_id)}`).catch(() => ({ name: stat.rule_id }))));
    fill($("top-rules"), top.length ? top.map((stat, index) => el("li", {}, `${named[index].name}: ${formatNumber(stat.hits)}`)) : el("li", {}, nothing()));
  } catch (error) {
    sayError(error);
  }
}

async function loadAudit() {
  try {
    const page = await get("/v1/audit", { actor_id: $("audit-actor").value.trim(), action: $("audit-action").value.trim(), limit: 50, order: "newest" });
    fill($("audit-list"), page.entries.length ? page.entries.map((entry) => el("tr", { class: "audit-row" },
      el("td", {}, formatTime(entry.created_at)), el("td", {}, entry.actor_id), el("td", {}, entry.action),
      el("td", {}, `${entry.target_type} ${entry.target_id ?? ""}${entry.note ? ` · ${entry.note}` : ""}`))) : el("tr", {}, el("td", { colspan: "4" }, nothing())));
  } catch (error) {
    sayError(error);
  }
}
