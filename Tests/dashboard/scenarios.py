"""The dashboard's scenarios, each a test that drives headless Chromium against the real binary.

Elements are found only through the hooks in HOOKS.md. Each test seeds its own data in a channel
of its own, under user ids of its own, so the tests neither see nor disturb each other's reports.
run.py imports this module once it has checked that Selenium is there, and sets `context`."""
import base64
import hashlib
import hmac
import json
import os
import random
import re
import shutil
import tempfile
import time
import unittest
import uuid
from dataclasses import dataclass
from datetime import datetime
from urllib.parse import quote

from selenium.common.exceptions import TimeoutException
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.expected_conditions import staleness_of
from selenium.webdriver.support.ui import Select

from harness import (PAGES, PHONE, Api, ApiError, Bouncer, click_visible, on_visible, open_dashboard, poll, reading, sign_in,
                     submit_token, texts, visible, visible_text, wait, wait_visible)

LIVE_REPORT_SECONDS = 5  # how long a new report may take to reach an open queue
STATS_SECONDS = 6        # rule statistics are flushed about once a second; a reload each time
API_CHANGE_SECONDS = 5   # a change made in the page reaching the API
TOKEN_LEEWAY_SECONDS = 60  # the clock difference the service forgives on a token's exp (TokenVerifier.leeway)
AUDIT_PAGE = 50          # the audit entries the activity page asks for at once

# What each page shows once it has loaded the data seeded for it (see `seed_every_page`): the
# page walks wait for it before they screenshot or read the console.
PAGE_CONTENT = {
    "queue": "#queue-list li.queue-item",
    "appeals": "#appeals-list li.appeal-item",
    "rules": "#rules-list tr.rule-row",
    "activity": "#chart-bounces[data-total]",
    "users": "#bans-list tr.ban-row",
    "settings": "#config-form input[name]",
}

# Which section is shown, and which nav link carries aria-current (other than "false").
SHOWN_PAGE_JS = """
return {
  shown: [...document.querySelectorAll('section[data-page]')].filter(s => !s.hidden).map(s => s.dataset.page),
  current: [...document.querySelectorAll('nav#nav a[data-page]')]
    .filter(a => a.hasAttribute('aria-current') && a.getAttribute('aria-current') !== 'false')
    .map(a => a.dataset.page),
};"""

# The innermost elements that reach past the right edge of a viewport WIDTH wide: what makes a
# page wider than the phone.
OVERFLOWING_JS = """
const width = arguments[0];
const past = (e) => e.getClientRects().length && e.getBoundingClientRect().right > width + 1;
return [...document.querySelectorAll('body *')].filter((e) => past(e) && ![...e.children].some(past)).slice(0, 3)
  .map((e) => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + [...e.classList].map((c) => '.' + c).join(''));"""

HTML_LANGUAGE_JS = "return [document.documentElement.lang, document.documentElement.dir];"

STORAGE_JS = """
return {session: Object.values(sessionStorage).join(' '), local: Object.values(localStorage).join(' '),
        cookie: document.cookie};"""


@dataclass
class Context:
    base_url: str       # where the browser finds the dashboard and the API
    service: object     # harness.Bouncer: tokens
    api: object         # harness.Api: seeding and checking
    browsers: object    # harness.BrowserFactory
    artifacts: str      # screenshots go here


def queue_item(message_id):
    return f'#queue-list li.queue-item[data-message-id="{message_id}"]'


def queue_detail(message_id):
    return f'#queue-detail[data-message-id="{message_id}"]'


def appeal_item(appeal_id):
    return f'#appeals-list li.appeal-item[data-appeal-id="{appeal_id}"]'


def appeal_detail(appeal_id):
    return f'#appeal-detail[data-appeal-id="{appeal_id}"]'


def unique_word():
    """A made-up word for a word rule: consonant-vowel pairs (no doubled letters, which the
    normalizer would fold; no digits, which it reads as leetspeak)."""
    return "".join(random.choice("bdfgklmnprstvz") + random.choice("aeiou") for _ in range(5))


def number_in(text):
    digits = re.sub(r"\D", "", text)
    return int(digits) if digits else 0


def choose(select, value):
    """Picks the option whose value is VALUE. Selenium's select_by_value matches the value
    attribute only, which misses `<option>word</option>`, whose value is its text."""
    options = Select(select).options
    values = [option.get_attribute("value") for option in options]  # the property: text by default
    if value not in values:
        raise AssertionError(f"no option {value!r} in {select.get_attribute('id') or select.get_attribute('class')}: {values}")
    Select(select).select_by_index(values.index(value))


def fill(driver, css, value):
    """Types VALUE into a text field, or picks it in a select (HOOKS.md does not say which kind of
    control some form fields are)."""
    element = wait_visible(driver, css)
    if element.tag_name.lower() == "select":
        choose(element, value)
    else:
        element.clear()
        element.send_keys(value)


def press(driver, key):
    """A keyboard shortcut: the shortcuts work outside text fields, so leave any field first."""
    driver.execute_script("if (document.activeElement) document.activeElement.blur();")
    ActionChains(driver).send_keys(key).perform()


def seconds_until(timestamp):
    """Seconds from now until one of the API's timestamps ("2025-01-02T03:04:05.678Z")."""
    return datetime.fromisoformat(timestamp.replace("Z", "+00:00")).timestamp() - time.time()


def signed_token(secret, user, role, expires):
    """An HS256 token as `bouncer token` signs them, but with any expiry (`bouncer token --ttl`
    takes 1 second at least, and the service forgives TOKEN_LEEWAY_SECONDS past it)."""
    def encoded(part):
        return base64.urlsafe_b64encode(json.dumps(part, separators=(",", ":")).encode()).rstrip(b"=")
    claims = {"user_id": user, "role": role, "iat": int(expires) - 3600, "exp": int(expires)}
    signing_input = encoded({"alg": "HS256", "typ": "JWT"}) + b"." + encoded(claims)
    signature = base64.urlsafe_b64encode(hmac.new(secret.encode(), signing_input, hashlib.sha256).digest()).rstrip(b"=")
    return (signing_input + b"." + signature).decode()


# The focused element: a name for it (its id, or nav:<page> for a nav link) and its outline.
FOCUSED_JS = """
const e = document.activeElement;
if (!e || e === document.body) return null;
const style = getComputedStyle(e);
const name = e.id ? '#' + e.id : e.closest('nav#nav') && e.dataset.page ? 'nav:' + e.dataset.page
  : e.tagName.toLowerCase() + [...e.classList].map((c) => '.' + c).join('');
return {name, outline: style.outlineStyle, width: parseFloat(style.outlineWidth) || 0};"""

# The charts' totals by id, null while one is not drawn.
CHART_TOTALS_JS = """
return Object.fromEntries(['chart-bounces', 'chart-flags']
  .map((id) => [id, document.getElementById(id)?.getAttribute('data-total') ?? null]));"""


def is_favicon_miss(entry):
    # Chromium asks for /favicon.ico by itself when a page names no icon; its 404 is not the
    # dashboard's doing.
    return entry.get("source") == "network" and "/favicon.ico" in entry["message"]


class DashboardTest(unittest.TestCase):
    context = None

    def setUp(self):
        name = self._testMethodName.removeprefix("test_").replace("_", "-")[:40]
        self.tag = f"{name}-{uuid.uuid4().hex[:6]}"
        self.channel = f"dash:{self.tag}"
        self.api = self.context.api
        self.browsers = []

    # -- people and data

    def user(self, name, role="user"):
        """(user id, token) for a user of this test only."""
        user_id = f"{name}-{self.tag}"
        return user_id, self.context.service.token(user_id, role)

    def flagged_message(self, text, reasons=(("spam", None),), suffix="m"):
        """A message from a user of this test, flagged once for each (reason, details) by a
        different reporter each; returns its id."""
        _, author = self.user("author")
        message = self.api.send(author, self.channel, text, message_id=f"{self.tag}-{suffix}")
        for index, (reason, details) in enumerate(reasons):
            _, reporter = self.user(f"reporter{index}")
            self.api.flag(reporter, message["id"], reason, details)
        return message["id"]

    def seed_every_page(self):
        """Something for each page to show: a report, a rule (and with it a bounce, appealed), a ban."""
        _, admin = self.user("admin", "admin")
        self.flagged_message(f"cheap watches {self.tag}")
        word = unique_word()
        self.api.create_rule(admin, name=f"seeded {self.tag}", kind="word", pattern=word, action="bounce")
        _, author = self.user("author")
        bounced = self.api.send(author, self.channel, f"this {word} is bounced")
        self.api.appeal(author, bounced["id"], f"it was a quote {self.tag}")
        self.api.ban(admin, f"banned-{self.tag}")

    def own_service(self, *serve_args):
        """A `bouncer serve` of this test alone and an Api for it: for a test that would otherwise
        change what every later test sees on the shared one. Stopped when the test ends."""
        service = Bouncer(self.context.service.binary, *serve_args).start()
        self.addCleanup(service.stop)
        return service, Api(service.port)

    def count_events(self, token, event_type):
        """How many events of EVENT_TYPE the API keeps (the service is as young as this run)."""
        count, after = 0, 0
        while True:
            page = self.api.get(token, f"/v1/events?types={event_type}&after={after}&limit=200")
            count += len(page["events"])
            if len(page["events"]) < 200:
                return count
            after = page["next_after"]

    def ban_of(self, token, user_id):
        """The ban in force on USER_ID as GET /v1/bans lists it, or None."""
        cursor = ""
        while True:
            page = self.api.get(token, f"/v1/bans?limit=200{cursor}")
            for ban in page["bans"]:
                if ban["user_id"] == user_id:
                    return ban
            if not page["next_cursor"]:
                return None
            cursor = f"&cursor={quote(page['next_cursor'], safe='')}"

    def assert_expires_in(self, ban, seconds, slack=120):
        self.assertIsNotNone(ban["expires_at"], f"the ban has no expiry: {ban}")
        left = seconds_until(ban["expires_at"])
        self.assertTrue(seconds - slack <= left <= seconds + 5,
                        f"the ban expires in {left:.0f}s, not about {seconds}s: {ban['expires_at']}")

    # -- browsers

    def open_browser(self, **options):
        browser = self.context.browsers.open(**options)
        self.browsers.append(browser)
        self.addCleanup(self.close_browser, browser)
        return browser

    def close_browser(self, browser):
        """Every browser a test opens ends with no uncaught JavaScript error in its console."""
        try:
            errors = [entry["message"] for entry in browser.errors(sources=("javascript",))]
        finally:
            browser.quit()
        self.assertEqual(errors, [], "uncaught JavaScript errors in the browser console")

    def screenshot(self, browser, name):
        path = os.path.join(self.context.artifacts, f"{name}.png")
        self.assertTrue(browser.driver.save_screenshot(path), f"no screenshot written to {path}")

    def save_failure_screenshots(self):
        """Called by run.py's result when this test fails. A failure found by a cleanup (see
        `close_browser`) comes after its browser is closed: that one has nothing left to show."""
        for index, browser in enumerate(self.browsers):
            if not browser.closed:
                browser.driver.save_screenshot(
                    os.path.join(self.context.artifacts, f"failed-{self._testMethodName}-{index}.png"))

    # -- the page

    def sign_in(self, browser, token, page="queue", base_url=None):
        return sign_in(browser.driver, base_url or self.context.base_url, token, page)

    def wait_state(self, driver, read, accept, what):
        """Waits until ACCEPT(READ(driver)); else fails with WHAT and the last state read."""
        last = []

        def accepted(d):
            last[:] = [read(d)]
            return accept(last[0])
        try:
            return wait(driver).until(accepted)
        except TimeoutException:
            pass
        self.fail(f"{what}: {last[0] if last else None!r}")

    def show_page(self, driver, page):
        """Follows the nav link to PAGE, then checks that its section is the only one shown and
        that its link alone carries aria-current."""
        click_visible(driver, f'nav#nav a[data-page="{page}"]')
        self.wait_state(driver, lambda d: d.execute_script(SHOWN_PAGE_JS), {"shown": [page], "current": [page]}.__eq__,
                        f"after following its link, {page} is not the one page shown")

    def walk_every_page(self, browser, screenshot_prefix=None):
        """The sign-in page, then each page through the nav as an admin, each once its seeded data
        is shown; yields each page's name."""
        driver = browser.driver
        _, admin = self.user("admin", "admin")
        open_dashboard(driver, self.context.base_url)
        wait_visible(driver, "#token-input")
        if screenshot_prefix:
            self.screenshot(browser, f"{screenshot_prefix}-signin")
        yield "signin"
        submit_token(driver, admin)
        wait_visible(driver, "nav#nav")
        for page in PAGES:
            self.show_page(driver, page)
            wait_visible(driver, PAGE_CONTENT[page])
            if screenshot_prefix:
                self.screenshot(browser, f"{screenshot_prefix}-{page}")
            yield page

    def wait_whoami(self, driver, user_id):
        """Waits until #whoami names USER_ID: by then the page knows the role."""
        wait(driver).until(lambda d: user_id in " ".join(texts(d, "#whoami")), f"#whoami does not name {user_id}")

    def shown_links(self, driver):
        return {a.get_attribute("data-page") for a in driver.find_elements(By.CSS_SELECTOR, "nav#nav a[data-page]")
                if a.is_displayed()}

    def rule_row(self, driver, pattern):
        """The row of the rule with PATTERN, or None."""
        for row in driver.find_elements(By.CSS_SELECTOR, "#rules-list tr.rule-row"):
            if pattern in [cell.text.strip() for cell in row.find_elements(By.CSS_SELECTOR, ".rule-pattern")]:
                return row
        return None

    def wait_rule_row(self, driver, pattern, why):
        return wait(driver).until(lambda d: self.rule_row(d, pattern), f"no rule row for {pattern} {why}")

    def search_rule_row(self, driver, pattern):
        """The rules page's row of the rule with PATTERN, found through #rules-search (the list
        shows one page, and other tests add rules)."""
        fill(driver, "#rules-search", pattern)

        def only_row(d):
            rows = d.find_elements(By.CSS_SELECTOR, "#rules-list tr.rule-row")
            return len(rows) == 1 and self.rule_row(d, pattern)
        return wait(driver).until(only_row, f"#rules-list is not down to the rule with {pattern} after searching for it")

    def stored(self, driver):
        return driver.execute_script(STORAGE_JS)


class SignInTests(DashboardTest):
    def test_wrong_token_shows_signin_error(self):
        tokens = {"garbage": "not-a-token", "signed with another secret": self.context.service.foreign_token("intruder")}
        for label, token in tokens.items():
            with self.subTest(token=label):
                browser = self.open_browser()
                driver = browser.driver
                open_dashboard(driver, self.context.base_url)
                submit_token(driver, token)
                wait(driver).until(lambda d: " ".join(texts(d, "#signin-error")).strip() and visible(d, "#signin-error"),
                                   "#signin-error is not shown with a text")
                self.assertIsNone(visible(driver, "nav#nav"), "the nav is shown after a refused token")
                self.assertFalse(token in self.stored(driver)["session"], "a refused token was kept")

    def test_admin_sign_in_shows_nav_and_keeps_token_in_session_only(self):
        admin_id, admin = self.user("admin", "admin")
        browser = self.open_browser()
        driver = browser.driver
        self.sign_in(browser, admin)
        self.wait_whoami(driver, admin_id)
        self.assertEqual(self.shown_links(driver), set(PAGES))
        # assertTrue, not assertIn: a failure need not print the token
        stored = self.stored(driver)
        self.assertTrue(admin in stored["session"], "the token is not in sessionStorage")
        self.assertFalse(admin in stored["local"], "the token is in localStorage")
        self.assertFalse(admin in stored["cookie"], "the token is in a cookie")
        language = driver.execute_script(HTML_LANGUAGE_JS)
        self.assertTrue(language[0].lower().startswith("en"), f"html[lang] is {language[0]!r} for an English browser")
        self.assertNotEqual(language[1], "rtl")

        click_visible(driver, "#signout")
        wait_visible(driver, "#token-input")
        self.assertIsNone(visible(driver, "nav#nav"), "the nav is still shown after signing out")
        self.assertFalse(admin in self.stored(driver)["session"], "the token outlived signing out")

    def test_moderator_sees_no_settings_link_and_rules_read_only(self):
        moderator_id, moderator = self.user("moderator", "moderator")
        _, admin = self.user("admin", "admin")
        self.api.create_rule(admin, name=f"for {self.tag}", kind="word", pattern=unique_word(), action="flag")
        browser = self.open_browser()
        driver = browser.driver
        self.sign_in(browser, moderator)
        self.wait_whoami(driver, moderator_id)  # the links follow the role
        self.assertEqual(self.shown_links(driver), {"queue", "appeals", "rules", "activity", "users"})

        # Read-only: whatever of the rules' controls is shown is disabled.
        self.show_page(driver, "rules")
        wait_visible(driver, PAGE_CONTENT["rules"])
        controls = "#rules-list input.rule-enabled, #rules-list select.rule-mode, #rules-list button.rule-edit, #rule-save"
        editable = [control.get_attribute("class") or control.get_attribute("id")
                    for control in driver.find_elements(By.CSS_SELECTOR, controls)
                    if control.is_displayed() and control.is_enabled()]
        self.assertEqual(editable, [], "a moderator can change rules")

    def test_expired_token_returns_to_signin(self):
        # `bouncer token --ttl` takes 1 second at least and the service forgives a minute past a
        # token's exp: the token is signed here, on a service of this test's own whose secret this
        # test chose, to stop being accepted a few seconds after it is minted.
        directory = tempfile.mkdtemp(prefix="bouncer-dashboard-secret-")
        self.addCleanup(shutil.rmtree, directory, True)
        secret = uuid.uuid4().hex + uuid.uuid4().hex
        path = os.path.join(directory, "jwt-secret")
        with open(os.open(path, os.O_WRONLY | os.O_CREAT, 0o600), "w") as file:
            file.write(secret)
        service, api = self.own_service("--jwt-secret-file", path)
        admin_id = f"admin-{self.tag}"

        def refused(token):
            try:
                api.call("GET", "/v1/me", token=token, expect=(401,))
                return True
            except ApiError:
                return False

        browser = self.open_browser()
        driver = browser.driver
        open_dashboard(driver, service.base_url)
        wait_visible(driver, "#token-input")
        token = signed_token(secret, admin_id, "admin", time.time() - TOKEN_LEEWAY_SECONDS + 4)
        submit_token(driver, token)
        wait_visible(driver, "nav#nav")
        self.wait_whoami(driver, admin_id)
        self.assertTrue(poll(lambda: refused(token), 10, interval=0.25), "the service still takes the token")

        click_visible(driver, 'nav#nav a[data-page="rules"]')  # the rules page calls the API
        wait(driver).until(lambda d: " ".join(texts(d, "#signin-error")).strip() and visible(d, "#signin-error"),
                           "#signin-error is not shown with a text once the token has expired")
        self.assertIsNone(visible(driver, "nav#nav"), "the nav is still shown with an expired token")
        self.assertFalse(token in self.stored(driver)["session"], "the expired token was kept")


class QueueTests(DashboardTest):
    def test_review_flagged_message_end_to_end(self):
        moderator_id, moderator = self.user("moderator", "moderator")
        _, neighbour = self.user("neighbour")
        before = self.api.send(neighbour, self.channel, f"earlier in the channel {self.tag}")
        text = f"cheap watches here {self.tag}"
        message_id = self.flagged_message(text, reasons=(("spam", "selling watches"), ("harassment", "keeps posting it")))

        browser = self.open_browser()
        driver = browser.driver
        self.sign_in(browser, moderator)
        click_visible(driver, queue_item(message_id))
        wait_visible(driver, f'{queue_item(message_id)}[aria-selected="true"]')
        detail = queue_detail(message_id)
        wait(driver).until(lambda d: text in " ".join(texts(d, f"{detail} .message-text")),
                           "the detail does not show the message's text")
        wait(driver).until(lambda d: len(texts(d, f"{detail} .flag")) == 2, "the detail does not show two flags")
        reasons = " ".join(texts(driver, f"{detail} .flag .flag-reason")).lower()
        details = " ".join(texts(driver, f"{detail} .flag .flag-details"))
        for reason in ("spam", "harassment"):
            self.assertIn(reason, reasons)
        for written in ("selling watches", "keeps posting it"):
            self.assertIn(written, details)
        # The message's harm scores, as moderators see them (`moderation.scores`), in the detail and the list.
        toxicity = self.api.get(moderator, f"/v1/messages/{message_id}")["moderation"]["scores"]["toxicity"]
        for where in (detail, queue_item(message_id)):
            wait(driver).until(lambda d: f"toxicity {toxicity:.2f}" in " ".join(texts(d, f"{where} .scores .score")),
                               f"{where} does not show the toxicity score {toxicity:.2f}")
        wait(driver).until(lambda d: before["text"] in " ".join(texts(d, f"{detail} .context-message")),
                           f"the channel's context leaves out {before['text']!r}")
        self.assertIn(text, " ".join(texts(driver, f"{detail} .context-message.current")),
                      "the flagged message is not the current one in its context")

        note = f"a watch ad, but allowed {self.tag}"
        wait_visible(driver, "#review-note").send_keys(note)
        click_visible(driver, "#dismiss-button")
        wait(driver).until(lambda d: not d.find_elements(By.CSS_SELECTOR, queue_item(message_id)),
                           "the dismissed entry is still listed")

        resolved_path = f"/v1/flags?state=resolved&channel_id={self.channel}"
        resolved = poll(lambda: [flag for flag in self.api.get(moderator, resolved_path)["flags"]
                                 if flag["message_id"] == message_id], API_CHANGE_SECONDS)
        self.assertEqual(len(resolved), 2, resolved)
        for flag in resolved:
            self.assertEqual((flag["resolution"], flag["resolved_by"]), ("dismissed", moderator_id))
        audit = self.api.get(moderator, f"/v1/audit?action=flag.review&actor_id={moderator_id}")["entries"]
        self.assertIn((message_id, note), [(entry["target_id"], entry["note"]) for entry in audit], "the note was not recorded")

    def test_remove_with_keyboard_selects_next(self):
        moderator_id, moderator = self.user("moderator", "moderator")
        removed = self.flagged_message(f"spam spam {self.tag}", suffix="first")
        kept = self.flagged_message(f"more spam {self.tag}", suffix="second")

        browser = self.open_browser()
        driver = browser.driver
        self.sign_in(browser, moderator)
        wait_visible(driver, queue_item(kept))
        click_visible(driver, queue_item(removed))
        wait_visible(driver, queue_detail(removed))
        press(driver, "r")
        wait(driver).until(lambda d: not d.find_elements(By.CSS_SELECTOR, queue_item(removed)),
                           "the removed entry is still listed")
        wait(driver).until(lambda d: visible(d, '#queue-list li.queue-item[aria-selected="true"]'),
                           "no entry is selected after the decision")
        wait(driver).until(lambda d: (visible(d, "#queue-detail[data-message-id]").get_attribute("data-message-id")
                                      not in ("", removed)), "the detail still shows the removed message")

        message = poll(lambda: (m := self.api.get(moderator, f"/v1/messages/{removed}"))["state"] == "removed" and m,
                       API_CHANGE_SECONDS)
        self.assertTrue(message, "the message was not removed")
        flags = self.api.get(moderator, f"/v1/flags?channel_id={self.channel}")["flags"]
        states = {(flag["message_id"], flag["state"], flag["resolution"]) for flag in flags}
        self.assertEqual(states, {(removed, "resolved", "message_removed"), (kept, "open", None)})

    def test_new_report_arrives_live(self):
        _, moderator = self.user("moderator", "moderator")
        browser = self.open_browser()
        driver = browser.driver
        self.sign_in(browser, moderator)
        wait(driver).until(lambda d: re.search(r"\d", " ".join(texts(d, "#queue-count"))), "#queue-count shows no number")
        # The report is filed once the page's event stream is connected (its response has come
        # in), so what is tested is that the page shows what the stream brings.
        wait(driver).until(lambda d: browser.responded("/v1/events/stream"), "the queue opened no event stream")
        driver.execute_script("window.bouncerTestNoReload = true;")

        message_id = self.flagged_message(f"arrives live {self.tag}")
        wait(driver, LIVE_REPORT_SECONDS).until(lambda d: visible(d, queue_item(message_id)),
                                                f"the new report did not appear within {LIVE_REPORT_SECONDS}s")
        self.assertTrue(driver.execute_script("return window.bouncerTestNoReload === true;"), "the page was reloaded")

    def test_ban_from_queue_for_an_hour(self):
        _, moderator = self.user("moderator", "moderator")
        author_id, _ = self.user("author")
        message_id = self.flagged_message(f"ban me for an hour {self.tag}")
        browser = self.open_browser()
        driver = browser.driver
        self.sign_in(browser, moderator)
        click_visible(driver, queue_item(message_id))
        wait_visible(driver, queue_detail(message_id))
        fill(driver, "#ban-duration", "3600")
        click_visible(driver, "#ban-button")
        wait(driver).until(lambda d: not d.find_elements(By.CSS_SELECTOR, queue_item(message_id)),
                           "the entry is still listed after the ban")
        ban = poll(lambda: self.ban_of(moderator, author_id), API_CHANGE_SECONDS)
        self.assertTrue(ban, f"{author_id} is not banned")
        self.assert_expires_in(ban, 3600)


class RulesTests(DashboardTest):
    def test_observe_rule_counts_hits_then_enforce_bounces(self):
        _, admin = self.user("admin", "admin")
        _, author = self.user("author")
        pattern = unique_word()
        browser = self.open_browser()
        driver = browser.driver
        self.sign_in(browser, admin, page="rules")
        self.show_page(driver, "rules")
        fill(driver, "#rule-name", f"observe {self.tag}")
        fill(driver, "#rule-kind", "word")
        fill(driver, "#rule-pattern", pattern)
        fill(driver, "#rule-action", "bounce")
        fill(driver, "#rule-mode", "observe")
        click_visible(driver, "#rule-save")
        rule_id = reading(driver, lambda d: self.wait_rule_row(d, pattern, "after saving").get_attribute("data-rule-id"))
        rule = self.api.get(admin, f"/v1/rules/{rule_id}")
        self.assertEqual((rule["kind"], rule["pattern"], rule["action"], rule["mode"]), ("word", pattern, "bounce", "observe"))

        observed = self.api.send(author, self.channel, f"so {pattern} there")
        self.assertEqual(observed["state"], "delivered", "an observed rule decided the message")

        def hits_after_reload(d):
            d.refresh()
            row = self.wait_rule_row(d, pattern, "after a reload")
            return number_in(row.find_element(By.CSS_SELECTOR, ".rule-hits").text) > 0
        wait(driver, STATS_SECONDS, poll_frequency=0.5).until(hits_after_reload, f".rule-hits stayed 0 for {STATS_SECONDS}s")

        def choose_enforce(d):
            row = self.rule_row(d, pattern)
            if row is not None:
                choose(row.find_element(By.CSS_SELECTOR, "select.rule-mode"), "enforce")
            return row is not None
        wait(driver).until(choose_enforce)
        enforced = poll(lambda: self.api.get(admin, f"/v1/rules/{rule_id}")["mode"] == "enforce", API_CHANGE_SECONDS)
        self.assertTrue(enforced, "choosing enforce in select.rule-mode did not change the rule")
        # The rule is stored before the rules with its change are compiled and put in force (the
        # page's PATCH is answered after both): wait for what a send meets, not for the row.
        text = f"again {pattern} here"

        def in_force():
            checked = self.api.call("POST", "/v1/moderation/check", {"text": text}, admin)
            return any(rule["id"] == rule_id for rule in checked["rules"])
        self.assertTrue(poll(in_force, API_CHANGE_SECONDS), "the enforced rule never decided a check")
        bounced = self.api.send(author, self.channel, text)
        self.assertEqual(bounced["state"], "bounced")

    def test_check_text_marks_matched_span(self):
        _, admin = self.user("admin", "admin")
        pattern = unique_word()
        self.api.create_rule(admin, name=f"check {self.tag}", kind="word", pattern=pattern, action="bounce")
        browser = self.open_browser()
        driver = browser.driver
        self.sign_in(browser, admin, page="rules")
        self.show_page(driver, "rules")
        field = wait_visible(driver, "#check-text")
        field.send_keys(f"please {pattern} now")
        wait(driver).until(lambda d: pattern in [mark.strip().lower() for mark in texts(d, "#check-result mark")],
                           f"#check-result marks no {pattern!r}")
        self.assertIn("please", visible_text(driver, "#check-result"), "the checked text is not shown around the mark")
        self.assertIn("bounce", visible_text(driver, "#check-action").lower())

        field.clear()
        field.send_keys("nothing to see here")
        wait(driver).until(lambda d: "nothing" in d.find_element(By.CSS_SELECTOR, "#check-result").text
                           and not d.find_elements(By.CSS_SELECTOR, "#check-result mark"),
                           "the verdict did not follow the text as it was typed")

    def test_dry_run_marks_samples_and_creates_no_rule(self):
        _, admin = self.user("admin", "admin")
        _, author = self.user("author")
        word = unique_word()
        sent = [self.api.send(author, self.channel, f"{opening} {word} {closing}")["text"]
                for opening, closing in (("first", "here"), ("then", "again"), ("one more", "to end"))]
        browser = self.open_browser()
        driver = browser.driver
        self.sign_in(browser, admin, page="rules")
        self.show_page(driver, "rules")
        fill(driver, "#rule-name", f"dry run {self.tag}")
        fill(driver, "#rule-kind", "word")
        fill(driver, "#rule-pattern", word)
        fill(driver, "#rule-action", "flag")
        click_visible(driver, "#rule-dry-run")

        samples = "#dry-run-result .dry-run-sample"
        self.wait_state(driver, lambda d: texts(d, samples),
                        lambda shown: all(any(text in sample for sample in shown) for text in sent),
                        f"#dry-run-result does not show the {len(sent)} messages with {word!r} as .dry-run-sample items")
        shown = reading(driver, lambda d: [(sample.text, [mark.text.strip().lower() for mark in sample.find_elements(By.CSS_SELECTOR, "mark")])
                                           for sample in d.find_elements(By.CSS_SELECTOR, samples)])
        for sample_text, marks in shown:
            self.assertEqual(marks, [word], f"the sample {sample_text!r} does not mark {word!r} alone")
        self.assertEqual(self.api.get(admin, f"/v1/rules?q={word}")["rules"], [], "the dry run created a rule")

    def test_import_word_list_reports_progress_and_count(self):
        # 2,000 rules would push every later test's rule out of the rules page's first page: this
        # test has a service of its own.
        service, api = self.own_service()
        admin = service.token(f"admin-{self.tag}", "admin")
        words = set()
        while len(words) < 2000:
            words.add(unique_word())
        words = sorted(words)
        directory = tempfile.mkdtemp(prefix="bouncer-dashboard-import-")
        self.addCleanup(shutil.rmtree, directory, True)
        path = os.path.join(directory, "words.txt")
        with open(path, "w") as file:
            file.write("# made-up words\n" + "\n".join(words) + "\n")

        browser = self.open_browser()
        driver = browser.driver
        self.sign_in(browser, admin, page="rules", base_url=service.base_url)
        self.show_page(driver, "rules")
        wait_visible(driver, "#import-file").send_keys(path)
        fill(driver, "#import-kind", "word")
        fill(driver, "#import-action", "flag")
        click_visible(driver, "#import-button")

        progress = "const p = document.getElementById('import-progress'); return [p.value, p.max, !p.hidden];"
        self.wait_state(driver, lambda d: d.execute_script(progress), lambda state: state[2] and state[0] == state[1],
                        "#import-progress [value, max, shown] did not reach its max")
        self.wait_state(driver, lambda d: " ".join(texts(d, "#import-result")), lambda text: number_in(text) == len(words),
                        f"#import-result does not name {len(words)}")
        for word in (words[0], words[len(words) // 2], words[-1]):
            rules = api.get(admin, f"/v1/rules?q={word}")["rules"]
            self.assertEqual([(rule["kind"], rule["pattern"], rule["action"]) for rule in rules], [("word", word, "flag")])

    def test_edit_rule_changes_its_action(self):
        _, admin = self.user("admin", "admin")
        pattern = unique_word()
        rule = self.api.create_rule(admin, name=f"edited {self.tag}", kind="word", pattern=pattern, action="flag")
        browser = self.open_browser()
        driver = browser.driver
        self.sign_in(browser, admin, page="rules")
        self.show_page(driver, "rules")
        self.search_rule_row(driver, pattern).find_element(By.CSS_SELECTOR, "button.rule-edit").click()
        wait(driver).until(lambda d: visible(d, "#rule-pattern").get_attribute("value") == pattern,
                           "the form does not hold the rule after button.rule-edit")
        fill(driver, "#rule-action", "bounce")
        click_visible(driver, "#rule-save")
        changed = poll(lambda: (now := self.api.get(admin, f"/v1/rules/{rule['id']}"))["action"] == "bounce" and now,
                       API_CHANGE_SECONDS)
        self.assertTrue(changed, "saving the form did not change the rule's action")
        self.assertEqual((changed["name"], changed["kind"], changed["pattern"], changed["mode"]),
                         (rule["name"], "word", pattern, rule["mode"]), "saving the form changed more than the action")
        self.assertEqual(self.api.get(admin, f"/v1/rules?q={pattern}")["rules"], [changed], "saving an edit made another rule")

    def test_untick_enabled_disables_rule(self):
        _, admin = self.user("admin", "admin")
        pattern = unique_word()
        rule = self.api.create_rule(admin, name=f"switched {self.tag}", kind="word", pattern=pattern, action="flag")
        browser = self.open_browser()
        driver = browser.driver
        self.sign_in(browser, admin, page="rules")
        self.show_page(driver, "rules")
        box = self.search_rule_row(driver, pattern).find_element(By.CSS_SELECTOR, "input.rule-enabled")
        self.assertTrue(box.is_selected(), "input.rule-enabled is not ticked for an enabled rule")
        box.click()
        disabled = poll(lambda: self.api.get(admin, f"/v1/rules/{rule['id']}")["enabled"] is False, API_CHANGE_SECONDS)
        self.assertTrue(disabled, "unticking input.rule-enabled did not disable the rule")
        driver.refresh()
        box = self.search_rule_row(driver, pattern).find_element(By.CSS_SELECTOR, "input.rule-enabled")
        self.assertFalse(box.is_selected(), "after a reload, input.rule-enabled is ticked for a disabled rule")


class LayoutTests(DashboardTest):
    def assert_fits_phone(self, driver, page):
        scroll_width, inner_width = driver.execute_script(
            "return [document.documentElement.scrollWidth, window.innerWidth];")
        if inner_width > PHONE["width"]:
            # The phone zoomed out to fit the page: something is wider than the screen, or the
            # page has no width=device-width viewport.
            overflowing = driver.execute_script(OVERFLOWING_JS, PHONE["width"])
            self.fail(f"{page} is laid out {inner_width} pixels wide on a {PHONE['width']}-pixel phone; "
                      f"past the edge: {overflowing or 'nothing (no width=device-width viewport?)'}")
        self.assertLessEqual(scroll_width, inner_width, f"{page} scrolls sideways on a phone")

    def test_phone_width_no_horizontal_scroll_and_nav_usable(self):
        self.seed_every_page()
        _, admin = self.user("admin", "admin")
        browser = self.open_browser(phone=True)
        driver = browser.driver
        open_dashboard(driver, self.context.base_url)
        wait_visible(driver, "#token-input")
        self.assert_fits_phone(driver, "signin")
        self.screenshot(browser, "phone-signin")
        submit_token(driver, admin)
        wait_visible(driver, "nav#nav")
        for page in PAGES:
            with self.subTest(page=page):
                self.show_page(driver, page)  # a click fails on a link that is covered or off-screen
                wait_visible(driver, PAGE_CONTENT[page])
                self.assert_fits_phone(driver, page)
                self.screenshot(browser, f"phone-{page}")

    def test_arabic_is_right_to_left(self):
        self.seed_every_page()
        _, admin = self.user("admin", "admin")
        browser = self.open_browser(locale="ar")
        driver = browser.driver
        open_dashboard(driver, self.context.base_url)
        wait_visible(driver, "#token-input")
        self.screenshot(browser, "arabic-signin")
        submit_token(driver, admin)
        wait_visible(driver, "nav#nav")
        self.wait_state(driver, lambda d: d.execute_script(HTML_LANGUAGE_JS),
                        lambda html: html[0].lower().startswith("ar") and html[1] == "rtl",
                        "html[lang], html[dir] for an Arabic browser")
        wait_visible(driver, PAGE_CONTENT["queue"])
        self.screenshot(browser, "arabic-queue")
        self.show_page(driver, "appeals")
        wait_visible(driver, PAGE_CONTENT["appeals"])
        wait_visible(driver, "#appeal-detail[data-appeal-id] .appeal-reason")
        self.screenshot(browser, "arabic-appeals")


class EveryPageTests(DashboardTest):
    def test_every_page_requests_only_loopback(self):
        self.seed_every_page()
        browser = self.open_browser()
        for _ in self.walk_every_page(browser, screenshot_prefix="desktop"):
            pass
        foreign = browser.foreign_requests()
        self.assertTrue(any("/v1/" in url for url in browser.requests), "no API request was recorded: is the log on?")
        self.assertEqual(foreign, [], "requests left 127.0.0.1")

    def test_every_page_logs_no_console_error(self):
        self.seed_every_page()
        browser = self.open_browser()
        seen = 0
        for page in self.walk_every_page(browser):
            errors = [entry for entry in browser.errors() if not is_favicon_miss(entry)]
            with self.subTest(page=page):
                self.assertEqual([entry["message"] for entry in errors[seen:]], [], "SEVERE console entries")
            seen = len(errors)


# Every visible text's contrast against the background it is drawn on (the first opaque one up
# its ancestors), as WCAG 2 computes it; and every visible form control without an accessible
# name (a <label for>, a wrapping label, aria-label). Answers the failures, at most ten of each.
ACCESSIBILITY_JS = """
const channel = (c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
const parse = (text) => (text.match(/[\\d.]+/g) || []).map(Number);
const luminance = ([r, g, b]) => 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
const background = (element) => {
  for (let node = element; node; node = node.parentElement) {
    const [r, g, b, a = 1] = parse(getComputedStyle(node).backgroundColor);
    if (a >= 0.99) return [r, g, b];
  }
  return [255, 255, 255];
};
const shown = (e) => e.getClientRects().length && getComputedStyle(e).visibility !== 'hidden';
const lowContrast = [];
for (const element of document.querySelectorAll('body *')) {
  const ownText = [...element.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
  if (!ownText || !shown(element) || element.closest('svg') || element.disabled) continue;
  const style = getComputedStyle(element);
  const [l1, l2] = [luminance(parse(style.color)), luminance(background(element))].sort((a, b) => b - a);
  const ratio = (l1 + 0.05) / (l2 + 0.05);
  const large = parseFloat(style.fontSize) >= 24 || (parseFloat(style.fontSize) >= 18.66 && Number(style.fontWeight) >= 700);
  if (ratio < (large ? 3 : 4.5)) lowContrast.push(`${element.tagName.toLowerCase()}${element.id ? '#' + element.id : ''} "${element.textContent.trim().slice(0, 30)}" ${ratio.toFixed(2)}`);
}
const unnamed = [...document.querySelectorAll('input, select, textarea')].filter((control) => shown(control)
  && !(control.labels && control.labels.length) && !control.getAttribute('aria-label') && control.type !== 'hidden')
  .map((control) => control.id || control.name || control.outerHTML.slice(0, 60));
return {lowContrast: lowContrast.slice(0, 10), unnamed: unnamed.slice(0, 10)};
"""


class AccessibilityTests(DashboardTest):
    def test_every_page_has_readable_contrast_and_named_controls(self):
        self.seed_every_page()
        browser = self.open_browser()
        for page in self.walk_every_page(browser):
            found = browser.driver.execute_script(ACCESSIBILITY_JS)
            with self.subTest(page=page, check="contrast"):
                self.assertEqual(found["lowContrast"], [], "text below WCAG AA contrast (4.5:1, 3:1 when large)")
            with self.subTest(page=page, check="labels"):
                self.assertEqual(found["unnamed"], [], "form controls without a label")


class ActivityTests(DashboardTest):
    BOUNCES = 3
    FLAGS = 2

    def test_charts_count_seeded_events_and_audit_filters_by_actor(self):
        admin_id, admin = self.user("admin", "admin")
        _, author = self.user("author")
        _, busy = self.user("busy", "moderator")
        counted = ("message.bounced", "message.flagged")
        before = {event_type: self.count_events(admin, event_type) for event_type in counted}
        # A log in use: another moderator's work first, more than the one page of AUDIT_PAGE entries
        # the activity page asks for, so that the newest entry (this test's rule) comes after it.
        for index in range(AUDIT_PAGE // 2 + 1):
            passing = f"passing{index}-{self.tag}"
            self.api.ban(busy, passing, duration_seconds=60)
            self.api.call("DELETE", f"/v1/users/{passing}/ban", token=busy)
        word = unique_word()
        rule = self.api.create_rule(admin, name=f"activity {self.tag}", kind="word", pattern=word, action="bounce")
        for index in range(self.BOUNCES):
            self.assertEqual(self.api.send(author, self.channel, f"{word} number {index}")["state"], "bounced")
        for index in range(self.FLAGS):
            self.flagged_message(f"reported {index} {self.tag}", suffix=f"flagged{index}")
        after = {event_type: self.count_events(admin, event_type) for event_type in counted}
        self.assertGreaterEqual(after["message.bounced"], before["message.bounced"] + self.BOUNCES)
        self.assertGreaterEqual(after["message.flagged"], before["message.flagged"] + self.FLAGS)

        browser = self.open_browser()
        driver = browser.driver
        self.sign_in(browser, admin, page="activity")
        self.show_page(driver, "activity")

        def drawn(totals):
            return all(total is not None for total in totals.values())
        self.wait_state(driver, lambda d: d.execute_script(CHART_TOTALS_JS), drawn, "the charts' data-total")
        day = {chart: int(total) for chart, total in driver.execute_script(CHART_TOTALS_JS).items()}
        for chart, event_type, seeded in (("chart-bounces", "message.bounced", self.BOUNCES),
                                          ("chart-flags", "message.flagged", self.FLAGS)):
            self.assertGreaterEqual(day[chart], before[event_type] + seeded, f"#{chart} leaves out this test's {seeded}")
            self.assertLessEqual(day[chart], after[event_type], f"#{chart} counts more than the API has")

        # The week: a redraw, told by data-total coming back.
        driver.execute_script("for (const id of ['chart-bounces', 'chart-flags'])"
                              " document.getElementById(id).removeAttribute('data-total');")
        fill(driver, "#activity-range", "7d")
        self.wait_state(driver, lambda d: d.execute_script(CHART_TOTALS_JS), drawn, "the charts' data-total for 7d")
        for chart, total in driver.execute_script(CHART_TOTALS_JS).items():
            self.assertGreaterEqual(int(total), day[chart], f"#{chart} counts fewer in 7 days than in 24 hours")

        rows = "#audit-list tr.audit-row"
        with self.subTest(audit="unfiltered"):
            wait_visible(driver, rows)  # the list is filled at once
            listed = texts(driver, rows)
            self.assertTrue(any(rule["id"] in row and "rule.create" in row for row in listed),
                            f"#audit-list does not show the rule's creation, this test's last action; "
                            f"its {len(listed)} rows run from {listed[0]!r} to {listed[-1]!r}")
        fill(driver, "#audit-actor", admin_id)
        self.wait_state(driver, lambda d: texts(d, rows), lambda shown: shown and all(admin_id in row for row in shown),
                        f"#audit-list is not filtered to {admin_id}'s rows")
        self.assertTrue(any(rule["id"] in row and "rule.create" in row for row in texts(driver, rows)),
                        f"filtered to {admin_id}, #audit-list does not show the rule's creation")


class UsersTests(DashboardTest):
    def test_shadow_ban_with_expiry_unban_and_user_lookup(self):
        _, moderator = self.user("moderator", "moderator")
        author_id, _ = self.user("author")
        text = f"looked up later {self.tag}"
        details = f"reported for {self.tag}"
        self.flagged_message(text, reasons=(("harassment", details),))
        target = f"target-{self.tag}"
        browser = self.open_browser()
        driver = browser.driver
        self.sign_in(browser, moderator, page="users")
        self.show_page(driver, "users")

        fill(driver, "#ban-user", target)
        fill(driver, "#ban-reason", f"testing {self.tag}")
        fill(driver, "#ban-duration-input", "600")
        shadow = wait_visible(driver, "#ban-shadow")
        if not shadow.is_selected():
            shadow.click()
        click_visible(driver, "#ban-submit")
        row = f'#bans-list tr.ban-row[data-user-id="{target}"]'
        self.wait_state(driver, lambda d: " ".join(texts(d, f"{row} .ban-expiry")), lambda text: re.search(r"\d", text),
                        f"no {row} with a time in .ban-expiry")
        ban = poll(lambda: self.ban_of(moderator, target), API_CHANGE_SECONDS)
        self.assertTrue(ban, f"GET /v1/bans does not list {target}")
        self.assertTrue(ban["shadow"], f"the ban is not a shadow ban: {ban}")
        self.assert_expires_in(ban, 600)

        click_visible(driver, f"{row} button.unban")
        wait(driver).until(lambda d: not d.find_elements(By.CSS_SELECTOR, row), f"{row} is still listed after button.unban")
        self.assertTrue(poll(lambda: self.ban_of(moderator, target) is None, API_CHANGE_SECONDS),
                        f"GET /v1/bans still lists {target} after button.unban")

        fill(driver, "#user-lookup", author_id)
        click_visible(driver, "#user-lookup-button")
        self.wait_state(driver, lambda d: texts(d, "#user-detail .user-message"),
                        lambda shown: any(text in item for item in shown),
                        f"#user-detail has no .user-message with {text!r}")
        self.wait_state(driver, lambda d: texts(d, "#user-detail .user-flag"),
                        lambda shown: any("harassment" in item and details in item for item in shown),
                        "#user-detail has no .user-flag with the report's reason and details")


class SettingsTests(DashboardTest):
    def test_config_switch_and_translation_override(self):
        _, admin = self.user("admin", "admin")
        setting = "flag_action_enabled"
        original = self.api.get(admin, "/v1/config")[setting]
        self.addCleanup(self.api.call, "PATCH", "/v1/config", {setting: original}, admin)
        key = "dashboard.nav.rules"
        german = self.api.get(admin, "/v1/localization/de")
        self.assertNotIn(key, german["overridden"], f"{key} is already overridden in de")
        override = f"Regelwerk {uuid.uuid4().hex[:6]}"

        def drop_override():
            self.api.call("DELETE", f"/v1/localization/de/{key}", token=admin, expect=(204, 404))
        self.addCleanup(drop_override)

        browser = self.open_browser()
        driver = browser.driver
        self.sign_in(browser, admin, page="settings")
        self.show_page(driver, "settings")
        box = wait_visible(driver, f'#config-form input[name="{setting}"]')
        self.assertEqual(box.is_selected(), original, f"the {setting} checkbox does not show the setting")
        box.click()
        click_visible(driver, "#config-save")
        changed = poll(lambda: self.api.get(admin, "/v1/config")[setting] is (not original), API_CHANGE_SECONDS)
        self.assertTrue(changed, f"{setting} is still {original} after #config-save")
        self.api.call("PATCH", "/v1/config", {setting: original}, admin)  # what the other tests expect

        wait_visible(driver, '#translations-locale option[value="de"]')
        fill(driver, "#translations-locale", "de")
        row = f'#translations-list tr.translation-row[data-key="{key}"]'
        self.wait_state(driver, lambda d: " ".join(texts(d, row)), lambda text: german["strings"][key] in text,
                        f"{row} does not show the German text {german['strings'][key]!r}")
        field = wait_visible(driver, f"{row} input")
        field.send_keys(override)
        click_visible(driver, "#translations-save")
        saved = poll(lambda: (answer := self.api.get(admin, "/v1/localization/de"))["strings"][key] == override
                     and key in answer["overridden"], API_CHANGE_SECONDS)
        self.assertTrue(saved, "GET /v1/localization/de does not have the override")

        with self.subTest(browser="de"):
            german_browser = self.open_browser(locale="de")
            german_driver = german_browser.driver
            self.sign_in(german_browser, admin)
            self.wait_state(german_driver, lambda d: " ".join(texts(d, 'nav#nav a[data-page="rules"]')), override.__eq__,
                            "a German browser's rules link does not show the override")

        wait(driver).until(staleness_of(field), "the overrides were not shown again after saving")
        self.wait_state(driver, lambda d: d.find_element(By.CSS_SELECTOR, f"{row} input").get_attribute("value"),
                        override.__eq__,
                        f"the override's field in {row} after saving")
        field = wait_visible(driver, f"{row} input")
        field.clear()
        click_visible(driver, "#translations-save")
        dropped = poll(lambda: key not in self.api.get(admin, "/v1/localization/de")["overridden"], API_CHANGE_SECONDS)
        self.assertTrue(dropped, "emptying the override and saving did not drop it")
        self.assertEqual(self.api.get(admin, "/v1/localization/de")["strings"][key], german["strings"][key])


class KeyboardTests(DashboardTest):
    def test_tab_reaches_nav_and_queue_buttons_with_visible_focus(self):
        _, moderator = self.user("moderator", "moderator")
        self.flagged_message(f"reached by keyboard {self.tag}")
        browser = self.open_browser()
        driver = browser.driver
        open_dashboard(driver, self.context.base_url)

        def focused(d):
            return d.execute_script(FOCUSED_JS)

        def tab():
            ActionChains(driver).send_keys(Keys.TAB).perform()
            return focused(driver)
        self.wait_state(driver, focused, lambda now: now and now["name"] == "#token-input", "the focus on the sign-in page")
        ActionChains(driver).send_keys(moderator).perform()
        self.assertEqual((tab() or {}).get("name"), "#signin-button", "Tab from the token field")
        ActionChains(driver).send_keys(Keys.ENTER).perform()
        wait_visible(driver, "nav#nav")
        wait_visible(driver, "#queue-detail #ban-button")

        # The walk starts where the focus is after signing in; it ends once every expected stop has
        # been passed in order, or after 40 presses of Tab.
        expected = ["nav:queue", "nav:rules", "nav:activity", "nav:users", "#dismiss-button", "#remove-button", "#ban-button"]

        def passed_all(names):
            rest = iter(names)
            return all(name in rest for name in expected)
        walk = [focused(driver)]
        while len(walk) < 40 and not passed_all([step["name"] for step in walk if step]):
            walk.append(tab())
        names = [step["name"] if step else "(nothing)" for step in walk]
        with self.subTest(check="order"):
            reached = [name for name in names if name in expected]
            self.assertEqual(reached[:len(expected)], expected, f"from the sign-in, Tab went {names}")
        with self.subTest(check="outline"):
            unmarked = {step["name"]: step for step in walk if step and step["name"] in expected
                        and (step["outline"] == "none" or step["width"] <= 0)}
            self.assertEqual(unmarked, {}, "focused without a visible outline")


class AppealsTests(DashboardTest):
    def my_appeal(self, token, appeal_id):
        """The appeal as its author reads it (GET /v1/me/appeals, newest first)."""
        for appeal in self.api.get(token, "/v1/me/appeals?limit=50")["appeals"]:
            if appeal["id"] == appeal_id:
                return appeal
        return None

    def open_appeals(self, browser, token, base_url=None):
        """Signs in at the appeals page and waits until it has listed the open appeals and its
        event stream is connected."""
        driver = browser.driver
        self.sign_in(browser, token, page="appeals", base_url=base_url)
        self.show_page(driver, "appeals")
        wait(driver).until(lambda d: re.search(r"\d", " ".join(texts(d, "#appeals-count"))), "#appeals-count shows no number")
        wait(driver).until(lambda d: browser.responded("/v1/events/stream"), "the appeals page opened no event stream")
        wait(driver).until(lambda d: visible(d, "#appeals-live.live"), "#appeals-live does not say the stream is live")

    def test_removed_message_appealed_live_and_overturned_by_key(self):
        _, admin = self.user("admin", "admin")
        moderator_id, moderator = self.user("moderator", "moderator")
        author_id, author = self.user("author")
        _, reader = self.user("reader")
        word = unique_word()
        rule = self.api.create_rule(admin, name=f"removes {self.tag}", kind="word", pattern=word, action="remove")

        browser = self.open_browser()
        driver = browser.driver
        self.open_appeals(browser, moderator)
        driver.execute_script("window.bouncerTestNoReload = true;")

        # Two messages the rule removes, each appealed once the page is open: both arrive live.
        texts_sent, appeals = [], []
        for index, opening in enumerate(("my cat is called", "and the dog is called")):
            sent = self.api.send(author, self.channel, f"{opening} {word} {self.tag}", message_id=f"{self.tag}-m{index}")
            self.assertEqual(sent["state"], "removed", f"the remove rule did not remove {sent}")
            texts_sent.append(sent["text"])
            appeal = self.api.appeal(author, sent["id"], f"{word} is my pet's name, number {index} {self.tag}")
            self.assertEqual((appeal["state"], appeal["target_type"], appeal["target_id"]), ("open", "message", sent["id"]))
            appeals.append(appeal)
            wait(driver, LIVE_REPORT_SECONDS).until(lambda d: visible(d, appeal_item(appeal["id"])),
                                                    f"appeal {index} did not appear within {LIVE_REPORT_SECONDS}s")
        self.assertTrue(driver.execute_script("return window.bouncerTestNoReload === true;"), "the page was reloaded")
        ids = reading(driver, lambda d: [item.get_attribute("data-appeal-id")
                                         for item in d.find_elements(By.CSS_SELECTOR, "#appeals-list li.appeal-item")])
        self.assertLess(ids.index(appeals[0]["id"]), ids.index(appeals[1]["id"]), "the appeals are not oldest first")

        first, second = appeals
        click_visible(driver, appeal_item(first["id"]))
        wait_visible(driver, f'{appeal_item(first["id"])}[aria-selected="true"]')
        detail = appeal_detail(first["id"])
        self.wait_state(driver, lambda d: " ".join(texts(d, f"{detail} .appeal-reason")), lambda text: first["reason"] in text,
                        "the detail does not show the appeal's reason")
        self.wait_state(driver, lambda d: " ".join(texts(d, f"{detail} .appeal-message .message-text")),
                        lambda text: texts_sent[0] in text, "the detail does not show the message's text")
        self.assertIn(word, [mark.strip().lower() for mark in texts(driver, f"{detail} .message-text mark")],
                      "the rule's match is not marked in the message")
        self.assertIn("removed", " ".join(texts(driver, f"{detail} .message-state")))
        self.wait_state(driver, lambda d: [rule_item.get_attribute("data-rule-id")
                                           for rule_item in d.find_elements(By.CSS_SELECTOR, f"{detail} li.appeal-rule")],
                        lambda shown: rule["id"] in shown, "the detail does not name the rule that removed the message")
        self.assertIn(author_id, visible_text(driver, detail), "the detail does not say who appealed")
        self.screenshot(browser, "appeals-open")

        note = f"a pet's name, not abuse {self.tag}"
        wait_visible(driver, "#appeal-note").send_keys(note)
        press(driver, "o")
        wait(driver).until(lambda d: not d.find_elements(By.CSS_SELECTOR, appeal_item(first["id"])),
                           "the overturned appeal is still listed")
        wait_visible(driver, f'{appeal_item(second["id"])}[aria-selected="true"]')
        wait_visible(driver, appeal_detail(second["id"]))

        decided = poll(lambda: (appeal := self.my_appeal(author, first["id"])) and appeal["state"] == "overturned" and appeal,
                       API_CHANGE_SECONDS)
        self.assertTrue(decided, "the appeal is not overturned")
        self.assertEqual((decided["decided_by"], decided["note"]), (moderator_id, note))
        message = self.api.get(moderator, f"/v1/messages/{first['target_id']}")
        self.assertEqual(message["state"], "delivered", f"the overturned message is not delivered: {message}")
        channel = self.api.get(reader, f"/v1/channels/{quote(self.channel, safe='')}/messages")["messages"]
        self.assertIn(first["target_id"], [shown["id"] for shown in channel], "another user does not see the message again")
        self.assertNotIn(second["target_id"], [shown["id"] for shown in channel], "the other removed message is shown")

        # The next one, upheld by key: it stays removed.
        press(driver, "u")
        wait(driver).until(lambda d: not d.find_elements(By.CSS_SELECTOR, appeal_item(second["id"])),
                           "the upheld appeal is still listed")
        upheld = poll(lambda: (appeal := self.my_appeal(author, second["id"])) and appeal["state"] == "upheld" and appeal,
                      API_CHANGE_SECONDS)
        self.assertTrue(upheld, "the second appeal is not upheld")
        self.assertEqual(self.api.get(moderator, f"/v1/messages/{second['target_id']}")["state"], "removed")

        # The decided ones, under their states.
        fill(driver, "#appeals-state", "overturned")
        click_visible(driver, appeal_item(first["id"]))
        self.wait_state(driver, lambda d: " ".join(texts(d, f"{appeal_detail(first['id'])} .appeal-decision")),
                        lambda text: moderator_id in text and note in text, "the overturned appeal does not show who decided and the note")
        self.assertIsNone(visible(driver, "#overturn-button"), "a decided appeal can be decided again")
        self.screenshot(browser, "appeals-overturned")

    def test_ban_appeal_shows_the_ban_and_overturn_lifts_it(self):
        _, moderator = self.user("moderator", "moderator")
        banned_id, banned = self.user("banned")
        self.api.ban(moderator, banned_id, reason=f"flooding {self.tag}", duration_seconds=7200)
        browser = self.open_browser()
        driver = browser.driver
        self.open_appeals(browser, moderator)
        appeal = self.api.call("POST", "/v1/me/ban/appeal", {"reason": f"it was my cat on the keyboard {self.tag}"}, banned)
        self.assertEqual((appeal["target_type"], appeal["target_id"]), ("ban", banned_id))
        wait(driver, LIVE_REPORT_SECONDS).until(lambda d: visible(d, appeal_item(appeal["id"])),
                                                f"the ban appeal did not appear within {LIVE_REPORT_SECONDS}s")
        self.assertEqual(on_visible(driver, appeal_item(appeal["id"]), lambda item: item.get_attribute("data-target-type")), "ban")
        click_visible(driver, appeal_item(appeal["id"]))
        ban = f'{appeal_detail(appeal["id"])} .appeal-ban[data-user-id="{banned_id}"]'
        self.wait_state(driver, lambda d: " ".join(texts(d, ban)), lambda text: f"flooding {self.tag}" in text,
                        "the detail does not show the ban's reason")
        self.assertTrue(re.search(r"\d", " ".join(texts(driver, f"{ban} .ban-expiry"))), "the ban's end is not shown")
        click_visible(driver, "#overturn-button")
        wait(driver).until(lambda d: not d.find_elements(By.CSS_SELECTOR, appeal_item(appeal["id"])),
                           "the overturned ban appeal is still listed")
        self.assertTrue(poll(lambda: self.ban_of(moderator, banned_id) is None, API_CHANGE_SECONDS),
                        "overturning the ban appeal did not lift the ban")

    def test_own_case_buttons_are_disabled_with_the_reason(self):
        """A moderator an admin banned sees their own ban appeal, and their own ban, with the
        decision buttons disabled and the reason beside them; the server would refuse them
        (403 own_case), and another moderator may still decide."""
        _, admin = self.user("admin", "admin")
        moderator_id, moderator = self.user("moderator", "moderator")
        _, other_moderator = self.user("other", "moderator")
        self.api.ban(admin, moderator_id, reason=f"abuse of power {self.tag}", duration_seconds=7200)
        appeal = self.api.call("POST", "/v1/me/ban/appeal", {"reason": f"I was right {self.tag}"}, moderator)
        browser = self.open_browser()
        driver = browser.driver
        self.open_appeals(browser, moderator)
        wait(driver, LIVE_REPORT_SECONDS).until(lambda d: visible(d, appeal_item(appeal["id"])), "the own appeal is not listed")
        click_visible(driver, appeal_item(appeal["id"]))
        wait_visible(driver, f'{appeal_detail(appeal["id"])} #appeal-own-case')
        for button in ("#uphold-button", "#overturn-button"):
            self.assertFalse(wait_visible(driver, button).is_enabled(), f"{button} is enabled on one's own appeal")
            self.assertTrue(on_visible(driver, button, lambda element: element.get_attribute("title")), f"{button} gives no reason")
        press(driver, "o")
        time.sleep(1)
        self.assertEqual(self.my_appeal(moderator, appeal["id"])["state"], "open", "the key decided one's own appeal")
        self.screenshot(browser, "appeals-own-case")

        self.show_page(driver, "users")
        own_row = f'#bans-list tr.ban-row[data-user-id="{moderator_id}"] button.unban'
        self.assertFalse(wait_visible(driver, own_row).is_enabled(), "one's own ban can be lifted from the users page")
        self.assertIsNotNone(self.ban_of(admin, moderator_id))

        # Another moderator decides it.
        self.api.call("POST", f"/v1/appeals/{appeal['id']}/decision", {"decision": "overturn"}, other_moderator)
        self.assertTrue(poll(lambda: self.ban_of(admin, moderator_id) is None, API_CHANGE_SECONDS), "the other moderator's overturn did not lift the ban")

    def test_strike_policy_set_in_settings_bans_author_by_system(self):
        # A policy bans for every later strike: this test has a service of its own.
        service, api = self.own_service()
        admin = service.token(f"admin-{self.tag}", "admin")
        moderator = service.token(f"moderator-{self.tag}", "moderator")
        author_id = f"author-{self.tag}"
        author = service.token(author_id)
        reporter = service.token(f"reporter-{self.tag}")

        browser = self.open_browser()
        driver = browser.driver
        self.sign_in(browser, admin, page="settings", base_url=service.base_url)
        self.show_page(driver, "settings")
        box = wait_visible(driver, "#strike-policy-enabled")
        self.assertFalse(box.is_selected(), "a new service has a strike policy")
        wait_visible(driver, "#strike-policy-off")
        box.click()
        fill(driver, "#strike-window-days", "30")
        self.assertEqual(len(driver.find_elements(By.CSS_SELECTOR, "#strike-steps tr.strike-step")), 1)
        click_visible(driver, "#strike-step-add")
        rows = driver.find_elements(By.CSS_SELECTOR, "#strike-steps tr.strike-step")
        self.assertEqual(len(rows), 2, "#strike-step-add did not add a step")
        for row, (strikes, duration, unit) in zip(rows, (("2", "1", "86400"), ("3", None, ""))):
            field = row.find_element(By.CSS_SELECTOR, "input.step-strikes")
            field.clear()
            field.send_keys(strikes)
            choose(row.find_element(By.CSS_SELECTOR, "select.step-unit"), unit)
            if duration:
                field = row.find_element(By.CSS_SELECTOR, "input.step-duration")
                field.clear()
                field.send_keys(duration)
            else:
                self.assertFalse(row.find_element(By.CSS_SELECTOR, "input.step-duration").is_enabled(),
                                 "a permanent step still asks for a length")
        click_visible(driver, "#strike-policy-save")
        policy = {"window_days": 30, "steps": [{"strikes": 2, "ban_seconds": 86400}, {"strikes": 3, "ban_seconds": None}]}
        saved = poll(lambda: api.get(admin, "/v1/config").get("strike_policy") == policy, API_CHANGE_SECONDS)
        self.assertTrue(saved, f"GET /v1/config has {api.get(admin, '/v1/config').get('strike_policy')}, not {policy}")
        self.screenshot(browser, "strike-policy-settings")

        # Three reviews that remove the author's messages: the second bans for a day, the third for good.
        removed = []
        for index in range(3):
            sent = api.send(author, self.channel, f"rude thing number {index} {self.tag}", message_id=f"{self.tag}-s{index}")
            api.flag(reporter, sent["id"], "harassment")
            removed.append(sent["id"])
        api.review(moderator, removed[0], "remove_message")
        self.assertEqual(api.get(moderator, f"/v1/users/{author_id}/strikes")["active"], 1)
        self.assertIsNone(self.ban_with(api, admin, author_id), "one strike banned the author")
        api.review(moderator, removed[1], "remove_message")
        ban = poll(lambda: self.ban_with(api, admin, author_id), API_CHANGE_SECONDS)
        self.assertTrue(ban, "two strikes did not ban the author")
        self.assertEqual((ban["created_by"], ban["reason"]), ("system", "strikes"), ban)
        self.assert_expires_in(ban, 86400)
        api.review(moderator, removed[2], "remove_message")
        ban = poll(lambda: (now := self.ban_with(api, admin, author_id)) and now["expires_at"] is None and now, API_CHANGE_SECONDS)
        self.assertTrue(ban, f"three strikes did not ban the author for good: {self.ban_with(api, admin, author_id)}")
        self.assertEqual((ban["created_by"], ban["reason"]), ("system", "strikes"), ban)
        events = api.get(admin, "/v1/events?types=user.banned&limit=200")["events"]
        self.assertTrue(any(event["data"].get("user_id") == author_id and event["data"].get("reason") == "strikes" for event in events),
                        "no user.banned event says the ban was for strikes")

        self.show_page(driver, "users")
        wait_visible(driver, f'#bans-list tr.ban-row[data-user-id="{author_id}"]')
        fill(driver, "#user-lookup", author_id)
        click_visible(driver, "#user-lookup-button")
        self.wait_state(driver, lambda d: d.find_element(By.CSS_SELECTOR, "#user-strike-count").get_attribute("data-active"),
                        "3".__eq__, "#user-strike-count[data-active] after three removals")
        self.assertIn("3", visible_text(driver, "#user-strike-count"))
        reasons = reading(driver, lambda d: sorted(strike.get_attribute("data-reason")
                                                   for strike in d.find_elements(By.CSS_SELECTOR, "#user-strikes .strike")))
        self.assertEqual(reasons, ["message_removed"] * 3)
        shown = " ".join(texts(driver, "#user-strikes .strike .strike-message"))
        for message_id in removed:
            self.assertIn(message_id, shown, "a strike does not name its message")
        self.assertTrue(all(re.search(r"\d", text) for text in texts(driver, "#user-strikes .strike .strike-expiry")),
                        "a strike shows no expiry")
        self.screenshot(browser, "strikes-users")

    def ban_with(self, api, token, user_id):
        """The ban in force on USER_ID on a service of the test's own, or None."""
        for ban in api.get(token, "/v1/bans?limit=200")["bans"]:
            if ban["user_id"] == user_id:
                return ban
        return None

    def test_overturned_appeal_takes_its_strike_back(self):
        _, moderator = self.user("moderator", "moderator")
        author_id, author = self.user("author")
        _, reporter = self.user("reporter")
        removed = []
        for index in range(2):
            sent = self.api.send(author, self.channel, f"borderline joke {index} {self.tag}", message_id=f"{self.tag}-j{index}")
            self.api.flag(reporter, sent["id"], "harassment")
            self.api.review(moderator, sent["id"], "remove_message")
            removed.append(sent["id"])
        self.assertEqual(self.api.get(moderator, f"/v1/users/{author_id}/strikes")["active"], 2)
        appeal = self.api.appeal(author, removed[0], f"it was a joke among friends {self.tag}")

        browser = self.open_browser()
        driver = browser.driver
        self.sign_in(browser, moderator, page="users")
        self.show_page(driver, "users")
        count = "#user-strike-count"

        def look_up():
            fill(driver, "#user-lookup", author_id)
            click_visible(driver, "#user-lookup-button")
        look_up()
        self.wait_state(driver, lambda d: d.find_element(By.CSS_SELECTOR, count).get_attribute("data-active"), "2".__eq__,
                        f"{count}[data-active] after two removals")

        self.show_page(driver, "appeals")
        click_visible(driver, appeal_item(appeal["id"]))
        detail = appeal_detail(appeal["id"])
        self.wait_state(driver, lambda d: " ".join(texts(d, f"{detail} .appeal-message .message-text")),
                        lambda text: "borderline joke 0" in text, "the detail does not show the removed message")
        self.wait_state(driver, lambda d: texts(d, f"{detail} .flag .flag-reason"), lambda shown: "harassment" in shown,
                        "the detail does not show the report on the message")
        click_visible(driver, "#overturn-button")
        wait(driver).until(lambda d: not d.find_elements(By.CSS_SELECTOR, appeal_item(appeal["id"])),
                           "the overturned appeal is still listed")
        taken_back = poll(lambda: self.api.get(moderator, f"/v1/users/{author_id}/strikes")["active"] == 1, API_CHANGE_SECONDS)
        self.assertTrue(taken_back, "the overturn did not take the strike back")
        self.assertEqual(self.api.get(moderator, f"/v1/messages/{removed[0]}")["state"], "delivered")

        self.show_page(driver, "users")
        look_up()
        self.wait_state(driver, lambda d: d.find_element(By.CSS_SELECTOR, count).get_attribute("data-active"), "1".__eq__,
                        f"{count}[data-active] after the overturn")
        left = texts(driver, "#user-strikes .strike .strike-message")
        self.assertEqual(len(left), 1, f"the strikes left: {left}")
        self.assertIn(removed[1], left[0], "the strike left is not the other removal's")
        self.screenshot(browser, "strike-taken-back")
