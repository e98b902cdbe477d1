// Settings (admins): the configuration, one field a setting, the strike policy, and the
// localization overrides of one locale beside the texts in force.
import { del, get, patch, put, segment } from "./api.js";
import { el, fill, say, sayError, t } from "./ui.js";

const $ = (id) => document.getElementById(id);
let config = {};
let overridden = new Set();
/// Settings with a form of their own, not a field of the configuration's form.
const ownForms = new Set(["strike_policy"]);
/// Ban lengths a step is written in: seconds per unit, largest first; "" is for good.
const units = [["86400", "dashboard.unit.days"], ["3600", "dashboard.unit.hours"], ["60", "dashboard.unit.minutes"], ["1", "dashboard.unit.seconds"]];

export function setUp() {
  $("config-form").addEventListener("submit", (event) => { event.preventDefault(); saveConfig(); });
  $("translations-form").addEventListener("submit", (event) => { event.preventDefault(); saveTranslations(); });
  $("translations-locale").addEventListener("change", loadTranslations);
  $("strike-policy-form").addEventListener("submit", (event) => { event.preventDefault(); saveStrikePolicy(); });
  $("strike-policy-enabled").addEventListener("change", showPolicyFields);
  $("strike-step-add").addEventListener("click", () => addStep());
}

export async function show() {
  await Promise.all([loadConfig(), loadLocales()]);
}

async function loadConfig() {
  try {
    config = await get("/v1/config");
    fill($("config-fields"), Object.entries(config).filter(([key]) => !ownForms.has(key)).map(([key, value]) => field(key, value)));
    showStrikePolicy(config.strike_policy ?? null);
  } catch (error) {
    sayError(error);
  }
}

/// A setting's input: a checkbox for a switch, a number field, or text (a list comma-separated).
function field(key, value) {
  const id = `config-${key}`;
  if (typeof value === "boolean") {
    return el("label", { class: "check" }, el("input", { id, name: key, type: "checkbox", checked: value }), ` ${key}`);
  }
  const input = typeof value === "number"
    ? el("input", { id, name: key, type: "number", value: String(value), inputmode: "numeric" })
    : el("input", { id, name: key, value: Array.isArray(value) ? value.join(", ") : String(value ?? ""), autocomplete: "off" });
  return [el("label", { for: id }, key), input];
}

async function saveConfig() {
  const changes = {};
  for (const [key, value] of Object.entries(config)) {
    if (ownForms.has(key)) continue;
    const input = $("config-form").elements.namedItem(key);
    const now = typeof value === "boolean" ? input.checked
      : typeof value === "number" ? Number(input.value)
        : Array.isArray(value) ? input.value.split(",").map((item) => item.trim()).filter(Boolean)
          : input.value;
    if (JSON.stringify(now) !== JSON.stringify(value)) changes[key] = now;
  }
  if (Object.keys(changes).length === 0) return say(t("dashboard.common.saved"));
  try {
    config = await patch("/v1/config", changes);
    say(t("dashboard.common.saved"));
  } catch (error) {
    sayError(error);
  }
}

/// The policy in force: off, or its window and one row a step.
function showStrikePolicy(policy) {
  $("strike-policy-enabled").checked = policy !== null;
  $("strike-window-days").value = String(policy?.window_days ?? 30);
  fill($("strike-steps"));
  const steps = policy?.steps ?? [];
  if (steps.length) for (const one of steps) addStep(one);
  else addStep({ strikes: 3, ban_seconds: 86400 });
  showPolicyFields();
}

function showPolicyFields() {
  const on = $("strike-policy-enabled").checked;
  $("strike-policy-fields").hidden = !on;
  $("strike-policy-off").hidden = on;
}

/// A step's row: how many active strikes, and a ban of so many units, or for good.
function addStep(one = null) {
  const rows = $("strike-steps").querySelectorAll("tr.strike-step");
  const last = rows.length ? Number(rows[rows.length - 1].querySelector("input.step-strikes").value) || 0 : 0;
  const strikes = one?.strikes ?? last + 1;
  const seconds = one ? one.ban_seconds : 86400;
  const unit = seconds === null ? "" : units.find(([size]) => seconds % Number(size) === 0)[0];
  const number = seconds === null ? "" : String(seconds / Number(unit));
  const duration = el("input", { class: "step-duration", type: "number", min: "1", step: "1", inputmode: "numeric", value: number,
    "aria-label": t("dashboard.settings.strikes.ban"), disabled: seconds === null });
  const unitSelect = el("select", { class: "step-unit", "aria-label": t("dashboard.settings.strikes.unit"),
    onchange: () => {
      duration.disabled = unitSelect.value === "";
      if (!duration.disabled && !duration.value) duration.value = "1";
    } },
  units.map(([size, key]) => el("option", { value: size, selected: size === unit }, t(key))),
  el("option", { value: "", selected: unit === "" }, t("dashboard.duration.forever")));
  const row = el("tr", { class: "strike-step" },
    el("td", {}, el("input", { class: "step-strikes", type: "number", min: "1", max: "1000", step: "1", inputmode: "numeric",
      value: String(strikes), "aria-label": t("dashboard.settings.strikes.count") })),
    el("td", {}, duration, " ", unitSelect),
    el("td", {}, el("button", { type: "button", class: "quiet step-remove", onclick: () => { row.remove(); } },
      t("dashboard.settings.strikes.remove"))));
  $("strike-steps").append(row);
}

/// The policy as the form has it: null when off.
function strikePolicy() {
  if (!$("strike-policy-enabled").checked) return null;
  const steps = [...$("strike-steps").querySelectorAll("tr.strike-step")].map((row) => {
    const unit = row.querySelector("select.step-unit").value;
    return {
      strikes: Number(row.querySelector("input.step-strikes").value),
      ban_seconds: unit === "" ? null : Number(row.querySelector("input.step-duration").value) * Number(unit),
    };
  });
  return { window_days: Number($("strike-window-days").value), steps: steps.sort((a, b) => a.strikes - b.strikes) };
}

async function saveStrikePolicy() {
  try {
    config = await patch("/v1/config", { strike_policy: strikePolicy() });
    showStrikePolicy(config.strike_policy ?? null);
    say(t("dashboard.common.saved"));
  } catch (error) {
    sayError(error);
  }
}

async function loadLocales() {
  try {
    const answer = await get("/v1/localization/locales");
    const select = $("translations-locale");
    const current = select.value || document.documentElement.lang;
    fill(select, answer.locales.map((entry) => el("option", { value: entry.locale, selected: entry.locale === current }, entry.locale)));
    await loadTranslations();
  } catch (error) {
    sayError(error);
  }
}

async function loadTranslations() {
  const locale = $("translations-locale").value;
  try {
    const answer = await get(`/v1/localization/${segment(locale)}`);
    overridden = new Set(answer.overridden);
    fill($("translations-list"), Object.keys(answer.strings).sort().map((key) => el("tr", { class: "translation-row", dataset: { key } },
      el("td", { class: "rule-pattern" }, key),
      el("td", {}, answer.strings[key]),
      el("td", {}, el("input", { "aria-label": `${t("dashboard.settings.override")}: ${key}`, value: overridden.has(key) ? answer.strings[key] : "",
        dataset: { original: overridden.has(key) ? answer.strings[key] : "" }, autocomplete: "off" })))));
  } catch (error) {
    sayError(error);
  }
}

/// New and changed overrides go in one PUT; an override emptied is dropped.
async function saveTranslations() {
  const locale = $("translations-locale").value;
  const strings = {};
  const dropped = [];
  for (const row of $("translations-list").querySelectorAll("tr.translation-row")) {
    const input = row.querySelector("input");
    if (input.value === input.dataset.original) continue;
    if (input.value === "") dropped.push(row.dataset.key);
    else strings[row.dataset.key] = input.value;
  }
  try {
    if (Object.keys(strings).length) await put(`/v1/localization/${segment(locale)}`, { strings });
    for (const key of dropped) await del(`/v1/localization/${segment(locale)}/${segment(key)}`);
    say(t("dashboard.common.saved"));
    loadTranslations();
  } catch (error) {
    sayError(error);
  }
}
