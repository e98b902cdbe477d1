// The review queue: messages with open flags, one entry each, kept live through the event stream;
// a decision on the selected one with a click or a key.
import { followEvents, get, post, segment } from "./api.js";
import { debounced, el, fill, formatTime, nothing, say, sayError, t } from "./ui.js";

const pageSize = 50;
/// Messages shown on either side of the flagged one, from its channel.
const contextSize = 3;
const defaultReasons = ["spam", "harassment", "hate", "sexual", "violence", "self_harm", "misinformation", "inappropriate", "other", "bounce_override"];

const $ = (id) => document.getElementById(id);
let entries = [];
let selected = -1;
let cursor = null;
let events = null;
let loading = 0; // a newer load makes an older one's answer stale

export function setUp() {
  const reasons = $("queue-reason");
  for (const reason of defaultReasons) reasons.append(el("option", { value: reason }, reason));
  $("queue-sort").addEventListener("change", () => load());
  $("queue-reason").addEventListener("change", () => load());
  $("queue-channel").addEventListener("input", debounced(() => load(), 300));
  $("queue-more").addEventListener("click", () => load(cursor));
  $("queue-list").addEventListener("keydown", (event) => {
    if (event.key === "ArrowDown") { event.preventDefault(); step(1); }
    if (event.key === "ArrowUp") { event.preventDefault(); step(-1); }
  });
  document.addEventListener("keydown", onShortcut);
  events = followEvents(["message.flagged", "review.decided", "flag.withdrawn"], onEvent, (live) => {
    $("queue-live").textContent = t(live ? "dashboard.queue.live" : "dashboard.queue.offline");
    $("queue-live").classList.toggle("live", live);
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

/// Loads the first page (or the one after `after`) with the filters in force.
async function load(after = null) {
  const ticket = ++loading;
  try {
    const page = await get("/v1/review-queue", {
      sort: $("queue-sort").value, channel_id: $("queue-channel").value.trim(), reason: $("queue-reason").value,
      limit: pageSize, cursor: after,
    });
    if (ticket !== loading) return;
    const keep = after ? entries : [];
    entries = keep.concat(page.items.filter((item) => !keep.some((entry) => entry.message.id === item.message.id)));
    cursor = page.next_cursor;
    $("queue-more").hidden = !cursor;
    if (!after) selected = -1;
    render();
  } catch (error) {
    sayError(error);
  }
}

/// The entries the reason filter lets through: the API filters the pages it gives, and this the
/// reports that arrive live.
function visible() {
  const reason = $("queue-reason").value;
  return reason ? entries.filter((entry) => (entry.counts_by_reason?.[reason] ?? 0) > 0) : entries;
}

function render() {
  const shown = visible();
  $("queue-count").textContent = t("dashboard.queue.count", shown.length);
  const list = $("queue-list");
  if (shown.length === 0) {
    fill(list, el("li", { class: "hint" }, t("dashboard.queue.empty")));
    selected = -1;
    return renderDetail();
  }
  fill(list, shown.map((entry) => item(entry)));
  if (selected < 0 || selected >= shown.length) selected = 0;
  select(selected);
}

function item(entry, isNew = false) {
  const message = entry.message;
  const text = message.moderation?.original_text ?? message.text;
  return el("li", {
    class: isNew ? "queue-item new" : "queue-item", role: "option", "aria-selected": "false",
    dataset: { messageId: message.id },
    onclick: () => select(visible().findIndex((shown) => shown.message.id === message.id)),
  },
  el("div", { class: "text" }, text),
  el("div", { class: "meta" },
    `#${message.channel_id} · ${message.user_id} · ${t("dashboard.queue.flagCount", entry.flag_count)} · ${formatTime(entry.last_flag_at)}`),
  scores(message));
}

/// The classifier's scores of a message (`moderation.scores`), highest first: "toxicity 0.93".
function scores(message) {
  const values = Object.entries(message.moderation?.scores ?? {}).sort((a, b) => b[1] - a[1]);
  if (values.length === 0) return null;
  return el("div", { class: "scores", title: t("dashboard.queue.scores") },
    values.map(([attribute, score]) => el("span", { class: score >= 0.5 ? "score high" : "score", dataset: { attribute } },
      `${attribute} ${score.toFixed(2)}`)));
}

function select(index) {
  const shown = visible();
  if (index < 0 || index >= shown.length) return;
  selected = index;
  for (const node of $("queue-list").children) {
    node.setAttribute("aria-selected", String(node.dataset.messageId === shown[index].message.id));
  }
  $("queue-list").children[index]?.scrollIntoView({ block: "nearest" });
  renderDetail(shown[index]);
}

function step(by) {
  select(Math.min(Math.max(selected + by, 0), visible().length - 1));
}

/// The selected message, its reports, the decision form; its channel and revisions follow.
function renderDetail(entry) {
  const detail = $("queue-detail");
  if (!entry) {
    delete detail.dataset.messageId;
    return fill(detail, nothing());
  }
  const message = entry.message;
  detail.dataset.messageId = message.id;
  const context = el("div", { class: "context" });
  const revisions = el("div", { class: "revisions" });
  fill(detail,
    el("p", { class: "meta" }, `#${message.channel_id} · ${message.user_id} · ${message.state} · ${formatTime(message.created_at)}`),
    el("p", { class: "message-text" }, message.moderation?.original_text ?? message.text),
    scores(message),
    el("h3", {}, t("dashboard.queue.reports")),
    entry.flags.map((flag) => el("div", { class: "flag" },
      el("span", { class: "flag-reason" }, flag.reason), " · ", el("span", { class: "meta" }, `${flag.reporter_id} · ${formatTime(flag.created_at)}`),
      el("div", { class: "flag-details" }, flag.details ?? ""))),
    el("h3", {}, t("dashboard.queue.context")), context,
    message.edited ? [el("h3", {}, t("dashboard.queue.revisions")), revisions] : null,
    el("label", { for: "review-note" }, t("dashboard.queue.note")),
    el("textarea", { id: "review-note", rows: "2", maxlength: "1000" }),
    el("label", { for: "ban-duration" }, t("dashboard.queue.banFor")),
    el("select", { id: "ban-duration" },
      el("option", { value: "3600" }, t("dashboard.duration.hour")),
      el("option", { value: "86400", selected: true }, t("dashboard.duration.day")),
      el("option", { value: "604800" }, t("dashboard.duration.week")),
      el("option", { value: "" }, t("dashboard.duration.forever"))),
    el("div", { class: "actions" },
      el("button", { id: "dismiss-button", type: "button", class: "quiet", onclick: () => decide("dismiss") }, t("dashboard.queue.dismiss")),
      el("button", { id: "remove-button", type: "button", onclick: () => decide("remove_message") }, t("dashboard.queue.remove")),
      el("button", { id: "ban-button", type: "button", class: "danger", onclick: () => decide("ban_author") }, t("dashboard.queue.ban"))));
  loadContext(message, context);
  if (message.edited) loadRevisions(message, revisions);
}

async function loadContext(message, into) {
  try {
    const page = await get(`/v1/channels/${segment(message.channel_id)}/messages`, { around: message.id, limit: 2 * contextSize + 1 });
    fill(into, page.messages.map((other) => el("div", { class: other.id === message.id ? "context-message current" : "context-message" },
      el("span", { class: "meta" }, `${other.user_id} · ${formatTime(other.created_at)} `), other.moderation?.original_text ?? other.text)));
  } catch (error) {
    fill(into, el("p", { class: "error" }, error.message));
  }
}

async function loadRevisions(message, into) {
  try {
    const answer = await get(`/v1/messages/${segment(message.id)}/revisions`);
    const revisions = answer.revisions ?? answer.items ?? [];
    fill(into, revisions.length ? revisions.map((revision) => el("div", { class: "revision" },
      el("span", { class: "meta" }, `${formatTime(revision.created_at ?? revision.edited_at)} `), revision.text)) : nothing());
  } catch (error) {
    fill(into, el("p", { class: "error" }, error.message));
  }
}

async function decide(decision) {
  const entry = visible()[selected];
  if (!entry) return;
  const body = { decision, note: $("review-note")?.value.trim() || undefined };
  if (decision === "ban_author" && $("ban-duration").value) body.ban_duration_seconds = Number($("ban-duration").value);
  try {
    await post(`/v1/messages/${segment(entry.message.id)}/review`, body);
    removeEntry(entry.message.id);
    say(t("dashboard.queue.decided"));
  } catch (error) {
    sayError(error);
  }
}

function removeEntry(messageID) {
  const index = entries.findIndex((entry) => entry.message.id === messageID);
  if (index < 0) return;
  const shownIndex = visible().findIndex((entry) => entry.message.id === messageID);
  entries.splice(index, 1);
  if (shownIndex >= 0 && shownIndex < selected) selected -= 1;
  render();
}

/// j/k next and previous, d dismiss, r remove, b ban: only on the queue page and not while typing.
function onShortcut(event) {
  if ($("app").hidden || document.querySelector('section[data-page="queue"]').hidden) return;
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  if (event.target.closest("input, textarea, select")) return;
  const action = { j: () => step(1), k: () => step(-1), d: () => decide("dismiss"), r: () => decide("remove_message"), b: () => decide("ban_author") }[event.key];
  if (action) {
    event.preventDefault();
    action();
  }
}

/// A report, a decision or a withdrawal, as it happens (on this or any other instance).
function onEvent(type, data) {
  if (type === "message.flagged") return addFlag(data);
  if (type === "review.decided") return removeEntry(data.message_id);
  if (type === "flag.withdrawn") {
    const entry = entries.find((candidate) => candidate.message.id === data.message_id);
    if (!entry) return;
    entry.flags = entry.flags.filter((flag) => flag.id !== data.id);
    entry.flag_count = entry.flags.length;
    if (entry.flag_count === 0) return removeEntry(data.message_id);
    render();
  }
}

function addFlag(data) {
  const { flag, ...message } = data;
  if (!flag || flag.state !== "open") return;
  const channel = $("queue-channel").value.trim();
  if (channel && message.channel_id !== channel) return;
  const existing = entries.find((entry) => entry.message.id === message.id);
  if (existing) {
    if (existing.flags.some((known) => known.id === flag.id)) return;
    existing.flags.push(flag);
    existing.flag_count += 1;
    existing.counts_by_reason[flag.reason] = (existing.counts_by_reason[flag.reason] ?? 0) + 1;
    existing.last_flag_at = flag.created_at;
    return render();
  }
  const entry = { message, flags: [flag], flag_count: 1, counts_by_reason: { [flag.reason]: 1 }, first_flag_at: flag.created_at, last_flag_at: flag.created_at };
  const current = visible()[selected]?.message.id;
  entries.unshift(entry);
  render();
  // Keep the moderator on the message they were reading; the new one is marked as new.
  const shown = visible();
  const index = current ? shown.findIndex((candidate) => candidate.message.id === current) : 0;
  select(index < 0 ? 0 : index);
  $("queue-list").querySelector(`[data-message-id="${CSS.escape(message.id)}"]`)?.classList.add("new");
}
