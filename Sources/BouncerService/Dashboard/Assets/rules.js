// Rules: the list with each rule's hits and precision, switches for enabled and mode, a form to
// add or edit one (with a dry run against history first), a test box, and a word-list import.
import { get, patch, post, segment, upload } from "./api.js";
import { debounced, el, fill, formatNumber, formatPercent, highlighted, nothing, say, sayError, t } from "./ui.js";

const pageSize = 100;
/// The kinds with `params` instead of a pattern: the rate rules, and score rules.
const rateKinds = new Set(["flood", "mentions", "links", "score"]);
const $ = (id) => document.getElementById(id);
let rules = [];
let stats = new Map();
let statsComplete = true; // whether `stats` holds every rule that has any
let cursor = null;
let editing = null; // the rule being edited, or null for a new one
let isAdmin = false;
let loading = 0;

export function setUp(context) {
  isAdmin = context.isAdmin;
  $("rules-read-only").hidden = isAdmin;
  $("rules-search").addEventListener("input", debounced(() => load(), 250));
  $("rules-more").addEventListener("click", () => load(cursor));
  $("rule-form").addEventListener("submit", (event) => { event.preventDefault(); save(); });
  $("rule-dry-run").addEventListener("click", dryRun);
  $("rule-new").addEventListener("click", () => edit(null));
  $("rule-kind").addEventListener("change", fitFormToKind);
  $("check-text").addEventListener("input", debounced(check, 150));
  $("import-form").addEventListener("submit", (event) => { event.preventDefault(); importFile(); });
  fitFormToKind();
}

export function show() {
  load();
}

async function load(after = null) {
  const ticket = ++loading;
  try {
    const [page, statsPage] = await Promise.all([
      get("/v1/rules", { q: $("rules-search").value.trim(), limit: pageSize, cursor: after }),
      after ? null : get("/v1/rules/stats", { limit: 200, sort: "hits" }),
    ]);
    if (ticket !== loading) return;
    if (statsPage) {
      stats = new Map(statsPage.stats.map((stat) => [stat.rule_id, stat]));
      statsComplete = !statsPage.next_cursor;
    }
    // Past the 200 rules with most hits, a shown rule's statistics are asked for one by one.
    if (!statsComplete) {
      const missing = page.rules.filter((rule) => !stats.has(rule.id));
      const found = await Promise.all(missing.map((rule) => get(`/v1/rules/${segment(rule.id)}/stats`).catch(() => null)));
      for (const stat of found) if (stat) stats.set(stat.rule_id, stat);
      if (ticket !== loading) return;
    }
    rules = after ? rules.concat(page.rules) : page.rules;
    cursor = page.next_cursor;
    $("rules-more").hidden = !cursor;
    render();
  } catch (error) {
    sayError(error);
  }
}

function render() {
  fill($("rules-list"), rules.length ? rules.map(row) : el("tr", {}, el("td", { colspan: "9" }, nothing())));
}

function row(rule) {
  const stat = stats.get(rule.id);
  const mode = el("select", { class: "rule-mode", "aria-label": `${t("dashboard.rules.mode")}: ${rule.name}`, disabled: !isAdmin,
    onchange: (event) => change(rule, { mode: event.target.value }) },
  el("option", { value: "enforce", selected: rule.mode === "enforce" }, t("dashboard.rules.mode.enforce")),
  el("option", { value: "observe", selected: rule.mode === "observe" }, t("dashboard.rules.mode.observe")));
  return el("tr", { class: "rule-row", dataset: { ruleId: rule.id } },
    el("td", { class: "rule-name" }, rule.name),
    el("td", {}, rule.kind),
    el("td", { class: "rule-pattern" }, rule.params ? JSON.stringify(rule.params) : rule.pattern ?? ""),
    el("td", {}, rule.action),
    el("td", { class: "rule-hits num" }, formatNumber(stat?.hits ?? 0)),
    el("td", { class: "rule-precision num" }, formatPercent(stat?.precision)),
    el("td", {}, el("input", { type: "checkbox", class: "rule-enabled", checked: rule.enabled, disabled: !isAdmin,
      "aria-label": `${t("dashboard.rules.enabled")}: ${rule.name}`, onchange: (event) => change(rule, { enabled: event.target.checked }) })),
    el("td", {}, mode),
    el("td", {}, isAdmin ? el("button", { type: "button", class: "quiet rule-edit", onclick: () => edit(rule) }, t("dashboard.rules.edit")) : null));
}

async function change(rule, fields) {
  try {
    Object.assign(rule, await patch(`/v1/rules/${segment(rule.id)}`, fields));
    say(t("dashboard.common.saved"));
  } catch (error) {
    sayError(error);
    load();
  }
}

/// Puts `rule` in the form (or empties it for a new one).
function edit(rule) {
  editing = rule;
  $("rule-form-heading").textContent = t(rule ? "dashboard.rules.editing" : "dashboard.rules.new");
  $("rule-name").value = rule?.name ?? "";
  $("rule-kind").value = rule?.kind ?? "word";
  $("rule-kind").disabled = Boolean(rule); // a rule's kind is fixed once made
  $("rule-pattern").value = rule?.pattern ?? "";
  $("rule-params").value = rule?.params ? JSON.stringify(rule.params) : "";
  $("rule-action").value = rule?.action ?? "bounce";
  $("rule-mode").value = rule?.mode ?? "enforce";
  $("rule-channels").value = (rule?.channels ?? ["*"]).join(", ");
  fill($("dry-run-result"));
  fitFormToKind();
  $("rule-name").focus();
}

function fitFormToKind() {
  const rate = rateKinds.has($("rule-kind").value);
  $("rule-pattern").disabled = rate;
  $("rule-params").disabled = !rate;
}

/// The rule the form describes, as the API takes it. Throws on parameters that are not JSON.
function candidate() {
  const kind = $("rule-kind").value;
  const rule = {
    kind, action: $("rule-action").value, mode: $("rule-mode").value,
    channels: $("rule-channels").value.split(",").map((channel) => channel.trim()).filter(Boolean),
  };
  const name = $("rule-name").value.trim();
  if (name) rule.name = name;
  if (rateKinds.has(kind)) rule.params = JSON.parse($("rule-params").value || "{}");
  else rule.pattern = $("rule-pattern").value;
  return rule;
}

async function save() {
  try {
    const rule = candidate();
    if (editing) {
      delete rule.kind;
      await patch(`/v1/rules/${segment(editing.id)}`, rule);
    } else {
      await post("/v1/rules", rule);
    }
    say(t("dashboard.common.saved"));
    edit(null);
    load();
  } catch (error) {
    sayError(error);
  }
}

/// What the form's rule would have done to stored messages: changes by state, and samples.
async function dryRun() {
  const into = $("dry-run-result");
  fill(into, el("p", { class: "hint" }, t("dashboard.common.loading")));
  try {
    const rule = candidate();
    const result = await post("/v1/rules/dry-run", { rules: [rule] });
    const changed = Object.values(result.changes).reduce((sum, count) => sum + count, 0);
    fill(into,
      el("p", {}, t("dashboard.rules.dryRun.result", changed, result.scanned)),
      Object.entries(result.changes).map(([change, count]) => el("p", { class: "dry-run-change" }, `${change}: ${formatNumber(count)}`)),
      result.precision !== null ? el("p", {}, `${t("dashboard.rules.precision")}: ${formatPercent(result.precision)}`) : null,
      result.samples.map((sample) => el("div", { class: "dry-run-sample" },
        el("span", { class: "meta" }, `#${sample.channel_id} · ${sample.action} `), highlighted(sample.text, sample.matched ?? []))));
  } catch (error) {
    fill(into, el("p", { class: "error" }, error.message));
  }
}

/// The verdict on the test box's text, with the matched spans marked, as it is typed.
async function check() {
  const text = $("check-text").value;
  if (!text.trim()) {
    $("check-action").textContent = "";
    return fill($("check-marked"));
  }
  try {
    const verdict = await post("/v1/moderation/check", { text });
    if ($("check-text").value !== text) return; // typed on since: a newer check follows
    $("check-action").textContent = t("dashboard.rules.verdict", verdict.action);
    const matches = [...verdict.rules, ...(verdict.observed ?? [])].flatMap((rule) => rule.matched ?? []);
    fill($("check-marked"), highlighted(text, matches));
  } catch (error) {
    sayError(error);
  }
}

async function importFile() {
  const file = $("import-file").files[0];
  if (!file) return;
  const progress = $("import-progress");
  progress.hidden = false;
  progress.value = 0;
  $("import-button").disabled = true;
  try {
    const result = await upload("/v1/rules/import", { kind: $("import-kind").value, action: $("import-action").value }, file,
      (share) => { progress.value = Math.round(share * 100); });
    progress.value = 100;
    $("import-result").textContent = t("dashboard.rules.import.done", result.imported);
    load();
  } catch (error) {
    $("import-result").textContent = error.message;
  } finally {
    $("import-button").disabled = false;
  }
}
