// Settings (admins): the configuration, one field a setting, and the localization overrides of
// one locale beside the texts in force.
import { del, get, patch, put, segment } from "./api.js";
import { el, fill, say, sayError, t } from "./ui.js";

const $ = (id) => document.getElementById(id);
let config = {};
let overridden = new Set();

export function setUp() {
  $("config-form").addEventListener("submit", (event) => { event.preventDefault(); saveConfig(); });
  $("translations-form").addEventListener("submit", (event) => { event.preventDefault(); saveTranslations(); });
  $("translations-locale").addEventListener("change", loadTranslations);
}

export async function show() {
  await Promise.all([loadConfig(), loadLocales()]);
}

async function loadConfig() {
  try {
    config = await get("/v1/config");
    fill($("config-fields"), Object.entries(config).map(([key, value]) => field(key, value)));
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
