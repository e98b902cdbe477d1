// Users: the bans in force (timed and shadow) with their expiry, a form to ban, and one user's
// strikes, recent messages and the flags on them.
import { del, get, post, segment } from "./api.js";
import { el, fill, formatTime, nothing, say, sayError, t, tIsolated } from "./ui.js";

const $ = (id) => document.getElementById(id);
let me = null; // who is signed in: nobody lifts their own ban

export function setUp(context) {
  me = context?.me ?? null;
  $("ban-form").addEventListener("submit", (event) => { event.preventDefault(); ban(); });
  $("lookup-form").addEventListener("submit", (event) => { event.preventDefault(); lookUp($("user-lookup").value.trim()); });
}

export function show() {
  loadBans();
}

async function loadBans() {
  try {
    const page = await get("/v1/bans", { limit: 200 });
    fill($("bans-list"), page.bans.length ? page.bans.map((ban) => el("tr", { class: "ban-row", dataset: { userId: ban.user_id } },
      el("td", {}, el("button", { type: "button", class: "quiet", onclick: () => lookUp(ban.user_id) }, ban.user_id)),
      el("td", {}, ban.reason ?? ""),
      el("td", { class: "ban-expiry" }, ban.expires_at ? formatTime(ban.expires_at) : t("dashboard.users.never")),
      el("td", {}, ban.shadow ? "✓" : ""),
      el("td", {}, unbanButton(ban.user_id))))
      : el("tr", {}, el("td", { colspan: "5" }, nothing())));
  } catch (error) {
    sayError(error);
  }
}

/// Lifting one's own ban is deciding one's own case (403 own_case): disabled, with the reason.
function unbanButton(userID) {
  const own = me !== null && userID === me.user_id;
  return el("button", { type: "button", class: "quiet unban", disabled: own, title: own ? t("dashboard.common.ownCase") : undefined,
    onclick: () => unban(userID) }, t("dashboard.users.unban"));
}

async function ban() {
  const body = { reason: $("ban-reason").value.trim() || undefined, shadow: $("ban-shadow").checked };
  const seconds = $("ban-duration-input").value;
  if (seconds) body.duration_seconds = Number(seconds);
  try {
    await post(`/v1/users/${segment($("ban-user").value.trim())}/ban`, body);
    say(t("dashboard.common.saved"));
    $("ban-form").reset();
    loadBans();
  } catch (error) {
    sayError(error);
  }
}

async function unban(userID) {
  try {
    await del(`/v1/users/${segment(userID)}/ban`);
    say(t("dashboard.common.saved"));
    loadBans();
  } catch (error) {
    sayError(error);
  }
}

/// Up to 20 of what `userID` sent lately. Each page of the API looks through a stretch of the
/// store's messages and may come back short: a few pages are read, not the whole store.
async function recentMessages(userID) {
  const found = [];
  let cursor = null;
  for (let page = 0; page < 5 && found.length < 20; page++) {
    const answer = await get(`/v1/users/${segment(userID)}/messages`, { limit: 20 - found.length, cursor });
    found.push(...answer.messages);
    cursor = answer.next_cursor;
    if (!cursor) break;
  }
  return found;
}

/// What `userID` sent lately, in every state, and the flags on their messages.
async function lookUp(userID) {
  if (!userID) return;
  $("user-lookup").value = userID;
  const into = $("user-detail");
  fill(into, el("p", { class: "hint" }, t("dashboard.common.loading")));
  const strikes = el("div", { id: "user-strikes", dataset: { userId: userID } }, el("p", { class: "hint" }, t("dashboard.common.loading")));
  try {
    const [sent, flags] = await Promise.all([recentMessages(userID), get("/v1/flags", { author_id: userID, limit: 50 }),
      loadStrikes(userID, strikes)]);
    if ($("user-lookup").value.trim() !== userID) return; // another user was asked for meanwhile
    fill(into,
      el("h4", {}, t("dashboard.users.strikes")),
      strikes,
      el("h4", {}, t("dashboard.users.messages")),
      sent.map((message) => el("div", { class: "user-message" },
        el("span", { class: "meta" }, `#${message.channel_id} · ${message.state} · ${formatTime(message.created_at)} `),
        message.moderation?.original_text ?? message.text)),
      sent.length ? null : nothing(),
      el("h4", {}, t("dashboard.users.flags")),
      flags.flags.map((flag) => el("div", { class: "user-flag" },
        el("span", { class: "flag-reason" }, flag.reason), ` · ${flag.state} · ${flag.reporter_id} · ${formatTime(flag.created_at)} `,
        flag.details ?? "")),
      flags.flags.length ? null : nothing());
  } catch (error) {
    fill(into, el("p", { class: "error" }, error.message));
  }
}

const strikeReasons = ["message_removed", "author_banned", "appeal_upheld"];

/// The user's active strikes (not expired, not taken back), newest first, and their count.
async function loadStrikes(userID, into) {
  try {
    const answer = await get(`/v1/users/${segment(userID)}/strikes`);
    fill(into,
      el("p", { id: "user-strike-count", class: "strike-count", dataset: { active: String(answer.active) } },
        t("dashboard.users.strikes.active", answer.active)),
      answer.strikes.map((strike) => el("div", { class: "strike", dataset: { strikeId: strike.id, reason: strike.reason } },
        el("span", { class: "strike-reason" },
          strikeReasons.includes(strike.reason) ? t(`dashboard.users.strikes.reason.${strike.reason}`) : strike.reason),
        strike.message_id ? [" · ", el("span", { class: "strike-message" }, tIsolated("dashboard.users.strikes.message", strike.message_id))] : null,
        " · ", el("bdi", { class: "meta" }, formatTime(strike.created_at)),
        " · ", el("span", { class: "strike-expiry" }, tIsolated("dashboard.users.strikes.expires", formatTime(strike.expires_at))))));
  } catch (error) {
    fill(into, el("p", { class: "error" }, error.message));
  }
}
