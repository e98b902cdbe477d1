// The dashboard's start: sign-in, the pages and the hash that addresses them. Each page is a
// module with `setUp(context)` (once, after sign-in) and `show()` (each time it is opened).
import { APIError, get, token, whenUnauthorized } from "./api.js";
import { t, translate, say } from "./ui.js";
import * as queue from "./queue.js";
import * as appeals from "./appeals.js";
import * as rules from "./rules.js";
import * as activity from "./activity.js";
import * as users from "./users.js";
import * as settings from "./settings.js";

const pages = { queue, appeals, rules, activity, users, settings };
const signinPage = document.getElementById("signin-page");
const app = document.getElementById("app");
const signinError = document.getElementById("signin-error");
let me = null;
let started = new Set();

translate();

function showSignin(message) {
  me = null;
  app.hidden = true;
  signinPage.hidden = false;
  document.getElementById("whoami").hidden = true;
  document.getElementById("signout").hidden = true;
  signinError.hidden = !message;
  signinError.textContent = message || "";
  for (const page of Object.values(pages)) page.stop?.();
  started = new Set();
  document.getElementById("token-input").focus();
}

/// Asks the API who the token is: a user's token, a wrong one and an expired one are told apart.
async function signIn(value) {
  token.set(value);
  try {
    me = await get("/v1/me");
  } catch (error) {
    token.clear();
    return showSignin(error instanceof APIError && error.status === 401 ? t("dashboard.signin.invalid") : error.message);
  }
  if (me.role !== "moderator" && me.role !== "admin") {
    token.clear();
    return showSignin(t("dashboard.signin.forbidden"));
  }
  signinPage.hidden = true;
  app.hidden = false;
  const whoami = document.getElementById("whoami");
  whoami.textContent = t("dashboard.signedin", me.user_id, me.role);
  whoami.hidden = false;
  document.getElementById("signout").hidden = false;
  const isAdmin = me.role === "admin";
  for (const node of document.querySelectorAll("[data-admin]")) node.hidden = !isAdmin;
  for (const node of document.querySelectorAll("[data-admin-only]")) node.hidden = !isAdmin;
  route();
  // The sign-in form that held the focus is gone: the keyboard starts again at the pages.
  document.querySelector('nav#nav a[aria-current="page"]')?.focus();
}

/// Shows the page the hash names (the queue by default), setting it up the first time.
function route() {
  if (!me) return;
  let name = location.hash.replace(/^#\//, "") || "queue";
  if (!pages[name] || (name === "settings" && me.role !== "admin")) name = "queue";
  for (const section of document.querySelectorAll("main section[data-page]")) section.hidden = section.dataset.page !== name;
  for (const link of document.querySelectorAll("nav#nav a")) {
    if (link.dataset.page === name) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
  const page = pages[name];
  const context = { me, isAdmin: me.role === "admin" };
  if (!started.has(name)) {
    started.add(name);
    page.setUp(context);
  }
  page.show(context);
}

document.getElementById("signin").addEventListener("submit", (event) => {
  event.preventDefault();
  const value = document.getElementById("token-input").value.trim();
  if (value) signIn(value);
});
document.getElementById("signout").addEventListener("click", () => {
  token.clear();
  say("");
  showSignin();
});
whenUnauthorized(() => {
  token.clear();
  showSignin(t("dashboard.signin.expired"));
});
window.addEventListener("hashchange", route);

const saved = token.get();
if (saved) signIn(saved);
else showSignin();
