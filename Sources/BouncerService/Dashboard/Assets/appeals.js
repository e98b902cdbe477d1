// Appeals: what users appealed (a message that was bounced or removed, or a ban), oldest first,
// kept live through the event stream; a decision on the selected one with a click or a key.
import { APIError, followEvents, get, post, segment } from "./api.js";
import { debounced, el, fill, formatTime, highlighted, metaLine, nothing, say, sayError, t, tIsolated } from "./ui.js";

const pageSize = 50;
const states = ["open", "upheld", "overturned"];

const $ = (id) => document.getElementById(id);
let entries = [];
let selected = -1;
let cursor = null;
let events = null;
let loading = 0; // a newer load makes an older one's answer stale
let deciding = false;
let shown = null; // the entry the detail shows
let me = null; // who is signed in: nobody decides their own case
/// Appeals decided while the page is open: a list read before the decision was committed must
/// not bring them back.
const decided = new Set();
const undecided = (appeal) => !(appeal.state === "open" && decided.has(appeal.id));

export function setUp(context) {
  me = context?.me ?? null;
  $("appeals-state").addEventListener("change", () => { selected = -1; load(); });
  $("appeals-more").addEventListener("click", () => load(cursor));
  $("appeals-list").addEventListener("keydown", (event) => {
    if (event.key === "ArrowDown") { event.preventDefault(); step(1); }
    if (event.key === "ArrowUp") { event.preventDefault(); step(-1); }
  });
  document.addEventListener("keydown", onShortcut);
  events = followEvents(["appeal.created", "appeal.decided"], onEvent, (live) => {
    $("appeals-live").textContent = t(live ? "dashboard.queue.live" : "dashboard.queue.offline");
    $("appeals-live").classList.toggle("live", live);
  });
}

export function show() {
  load();
}

export function stop() {
  events?.close();
  events = null;
  document.removeEventListener("keydown", onShortcut);
}

const state = () => $("appeals-state").value;
const selectedID = () => entries[selected]?.id;

/// Loads the first page (or the one after `after`) of the appeals in the chosen state.
async function load(after = null) {
  const ticket = ++loading;
  try {
    const page = await get("/v1/appeals", { state: state(), limit: pageSize, cursor: after });
    if (ticket !== loading) return;
    const keep = after ? entries : [];
    const current = selectedID();
    entries = keep.concat(page.appeals.filter((appeal) => undecided(appeal) && !keep.some((entry) => entry.id === appeal.id)));
    cursor = page.next_cursor;
    $("appeals-more").hidden = !cursor;
    render(current);
  } catch (error) {
    sayError(error);
  }
}

/// Reads again the appeals listed so far (an appeal that arrived live has only what its event
/// carried: its flags, revisions and ban come with the list), keeping the one selected.
const refresh = debounced(async () => {
  const ticket = ++loading;
  try {
    const page = await get("/v1/appeals", { state: state(), limit: Math.min(200, Math.max(pageSize, entries.length)) });
    if (ticket !== loading) return;
    const current = selectedID();
    const fresh = new Map(page.appeals.map((appeal) => [appeal.id, appeal]));
    const known = new Map(entries.map((entry) => [entry.id, entry]));
    // Beyond the page read, what arrived live stays as it came; an entry read whole before is kept
    // as it is, so that its detail is not drawn again.
    const beyond = page.next_cursor ? entries.filter((entry) => !fresh.has(entry.id) && entry.live) : [];
    entries = page.appeals.filter(undecided)
      .map((appeal) => (known.has(appeal.id) && !known.get(appeal.id).live ? known.get(appeal.id) : appeal))
      .concat(beyond);
    cursor = page.next_cursor;
    $("appeals-more").hidden = !cursor;
    render(current);
  } catch (error) {
    sayError(error);
  }
}, 300);

/// Draws the list, keeping `keepID` selected when it is still listed (else the same position).
function render(keepID = null, marked = new Set()) {
  $("appeals-count").textContent = t("dashboard.appeals.count", entries.length);
  const list = $("appeals-list");
  if (entries.length === 0) {
    fill(list, el("li", { class: "hint" }, t("dashboard.appeals.empty")));
    selected = -1;
    return renderDetail();
  }
  fill(list, entries.map((entry) => item(entry, marked.has(entry.id))));
  const kept = keepID ? entries.findIndex((entry) => entry.id === keepID) : -1;
  if (kept >= 0) selected = kept;
  if (selected < 0 || selected >= entries.length) selected = 0;
  select(selected);
}

function about(entry) {
  return t(entry.target_type === "ban" ? "dashboard.appeals.about.ban" : "dashboard.appeals.about.message");
}

function item(entry, isNew = false) {
  return el("li", {
    class: isNew ? "appeal-item new" : "appeal-item", role: "option", "aria-selected": "false",
    dataset: { appealId: entry.id, targetType: entry.target_type, targetId: entry.target_id },
    onclick: () => select(entries.findIndex((shown) => shown.id === entry.id)),
  },
  el("div", { class: "text", dir: "auto" }, entry.reason),
  el("div", { class: "meta" }, metaLine(about(entry), entry.user_id, formatTime(entry.created_at))));
}

/// Selects the entry at `index`; its detail is drawn again only when it changed, so that a note
/// being written keeps its focus as appeals arrive.
function select(index) {
  if (index < 0 || index >= entries.length) return;
  const changed = shown !== entries[index];
  selected = index;
  for (const node of $("appeals-list").children) {
    node.setAttribute("aria-selected", String(node.dataset.appealId === entries[index].id));
  }
  $("appeals-list").children[index]?.scrollIntoView({ block: "nearest" });
  if (changed) renderDetail(entries[index]);
}

function step(by) {
  select(Math.min(Math.max(selected + by, 0), entries.length - 1));
}

const stateName = (value) => (states.includes(value) ? t(`dashboard.appeals.state.${value}`) : value);

/// The selected appeal: the user's reason, what it is about, and the decision form while open.
function renderDetail(entry) {
  const detail = $("appeal-detail");
  shown = entry ?? null;
  if (!entry) {
    delete detail.dataset.appealId;
    return fill(detail, nothing());
  }
  // The same appeal drawn again (its flags and revisions have come): the note being written is
  // the same field, with its text and focus.
  const same = entry.id === detail.dataset.appealId;
  const note = (same && $("appeal-note")) || el("textarea", { id: "appeal-note", rows: "2", maxlength: "1000" });
  const focused = document.activeElement === note;
  detail.dataset.appealId = entry.id;
  const isOpen = entry.state === "open";
  fill(detail,
    el("p", { class: "meta" }, metaLine(
      el("span", { class: "appeal-state", dataset: { state: entry.state } }, stateName(entry.state)),
      about(entry), el("span", {}, tIsolated("dashboard.appeals.by", entry.user_id, formatTime(entry.created_at))))),
    el("h3", {}, t("dashboard.appeals.reason")),
    el("p", { class: "appeal-reason message-text", dir: "auto" }, entry.reason),
    entry.target_type === "ban" ? banPart(entry) : messagePart(entry),
    isOpen ? null : el("p", { class: "appeal-decision meta" },
      tIsolated("dashboard.appeals.decidedBy", entry.decided_by ?? "", formatTime(entry.decided_at)),
      entry.note ? [el("br"), tIsolated("dashboard.appeals.noteShown", entry.note)] : null),
    isOpen ? decisionForm(entry, note) : null);
  if (isOpen && focused) note.focus();
}

/// Whether the appeal is the signed-in moderator's own: the server refuses their decision
/// (403 own_case), so its buttons are disabled, with the reason beside them.
const ownCase = (entry) => me !== null && entry.user_id === me.user_id;

function decisionForm(entry, note) {
  const own = ownCase(entry);
  const reason = own ? t("dashboard.common.ownCase") : undefined;
  return [
    el("label", { for: "appeal-note" }, t("dashboard.queue.note")),
    note,
    el("div", { class: "actions" },
      el("button", { id: "uphold-button", type: "button", class: "quiet", disabled: own, title: reason, onclick: () => decide("uphold") },
        t("dashboard.appeals.uphold")),
      el("button", { id: "overturn-button", type: "button", disabled: own, title: reason, onclick: () => decide("overturn") },
        t("dashboard.appeals.overturn"))),
    own ? el("p", { id: "appeal-own-case", class: "hint" }, reason) : null,
  ];
}

/// The message appealed: its text with what the rules matched marked, its state, the rules,
/// the reports on it and its earlier texts.
function messagePart(entry) {
  const message = entry.message;
  if (!message) return el("p", { class: "hint" }, t("dashboard.appeals.messageGone"));
  const moderation = message.moderation;
  const text = moderation?.original_text ?? message.text ?? "";
  const rules = moderation?.rules ?? [];
  const matches = moderation?.original_text !== undefined ? rules.flatMap((rule) => rule.matched ?? []) : [];
  const flags = entry.flags ?? [];
  const revisions = entry.revisions ?? [];
  return el("div", { class: "appeal-message", dataset: { messageId: message.id, state: message.state } },
    el("h3", {}, t("dashboard.appeals.message")),
    el("p", { class: "meta" }, metaLine(`#${message.channel_id}`, message.user_id,
      el("span", { class: "message-state" }, tIsolated("dashboard.appeals.messageState", message.state)),
      formatTime(message.created_at))),
    el("p", { class: "message-text", dir: "auto" }, highlighted(text, matches)),
    el("h4", {}, t("dashboard.appeals.rules")),
    rules.length
      ? el("ul", { class: "appeal-rules" }, rules.map((rule) => el("li", { class: "appeal-rule", dataset: { ruleId: rule.id } },
        metaLine(el("bdi", { class: "rule-name" }, rule.name || rule.id), rule.kind, rule.action,
          (rule.matched ?? []).map((span) => span.text).join(", ")))))
      : el("p", { class: "hint" }, t("dashboard.appeals.noRules")),
    el("h4", {}, t("dashboard.queue.reports")),
    flags.length ? flags.map((flag) => el("div", { class: "flag" },
      el("span", { class: "flag-reason" }, flag.reason), " · ",
      el("span", { class: "meta" }, metaLine(flag.reporter_id, flag.state, formatTime(flag.created_at))),
      el("div", { class: "flag-details" }, flag.details ?? ""))) : nothing(),
    revisions.length ? [el("h4", {}, t("dashboard.queue.revisions")), revisions.map((revision) => el("div", { class: "revision" },
      el("span", { class: "meta" }, metaLine(formatTime(revision.created_at), revision.state), " "), revision.text))] : null);
}

/// The ban appealed, while it is in force.
function banPart(entry) {
  const ban = entry.ban;
  if (ban === undefined) return el("p", { class: "hint" }, t("dashboard.common.loading"));
  if (!ban) return el("p", { class: "appeal-ban hint" }, t("dashboard.appeals.banLifted"));
  return el("div", { class: "appeal-ban", dataset: { userId: ban.user_id } },
    el("h3", {}, t("dashboard.appeals.ban")),
    el("p", {}, tIsolated("dashboard.appeals.banReason", ban.reason ?? "")),
    el("p", { class: "meta" }, tIsolated("dashboard.appeals.banBy", ban.created_by ?? "", formatTime(ban.created_at))),
    el("p", { class: "ban-expiry" }, ban.expires_at ? tIsolated("dashboard.appeals.banUntil", formatTime(ban.expires_at)) : t("dashboard.appeals.banPermanent")),
    ban.shadow ? el("p", { class: "meta" }, t("dashboard.users.shadow")) : null);
}

async function decide(decision) {
  const entry = entries[selected];
  if (!entry || entry.state !== "open" || deciding || ownCase(entry)) return;
  deciding = true;
  const body = { decision, note: $("appeal-note")?.value.trim() || undefined };
  try {
    await post(`/v1/appeals/${segment(entry.id)}/decision`, body);
    removeEntry(entry.id);
    say(t(decision === "uphold" ? "dashboard.appeals.upheld" : "dashboard.appeals.overturned"));
  } catch (error) {
    if (error instanceof APIError && error.code === "appeal_decided") {
      removeEntry(entry.id);
      say(t("dashboard.appeals.alreadyDecided"), true);
    } else {
      sayError(error);
    }
  } finally {
    deciding = false;
  }
}

/// Takes an appeal off the list; the one after it (or the last) is selected.
function removeEntry(appealID) {
  decided.add(appealID);
  const index = entries.findIndex((entry) => entry.id === appealID);
  if (index < 0) return;
  const wasSelected = index === selected;
  entries.splice(index, 1);
  if (index < selected) selected -= 1;
  if (selected >= entries.length) selected = entries.length - 1;
  render(wasSelected ? null : entries[selected]?.id);
}

/// j/k next and previous, u uphold, o overturn: only on the appeals page and not while typing.
function onShortcut(event) {
  if ($("app").hidden || document.querySelector('section[data-page="appeals"]').hidden) return;
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  if (event.target.closest("input, textarea, select")) return;
  const action = { j: () => step(1), k: () => step(-1), u: () => decide("uphold"), o: () => decide("overturn") }[event.key];
  if (action) {
    event.preventDefault();
    action();
  }
}

/// An appeal filed or decided, as it happens (on this or any other instance).
function onEvent(type, data) {
  if (!data?.id) return;
  if (type === "appeal.created") {
    if (state() !== "open" || entries.some((entry) => entry.id === data.id)) return;
    const current = selectedID();
    // Oldest first: a new appeal goes last, with what its event carries until the list is read again.
    // (A ban appeal's event does not carry the ban: it is left unknown until then.)
    entries.push({ flags: [], revisions: [], ...data, live: true });
    render(current, new Set([data.id]));
    refresh();
    return;
  }
  if (type === "appeal.decided") {
    if (state() === "open") return removeEntry(data.id);
    if (data.state === state()) refresh();
  }
}
