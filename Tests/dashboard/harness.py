"""What the dashboard's browser tests (run.py) and its benchmark (scripts/bench-dashboard.py) share:
the real `bouncer` binary on a fresh store, tokens, a JSON client for seeding, and headless Chromium
driven by Selenium that records every request a page makes.

Selenium is imported only after `require_browser` has checked that it is there, so a missing
package is named instead of ending in an ImportError."""
import http.client
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from urllib.parse import quote, urlsplit

DEBIAN_PACKAGES = ("chromium", "chromium-driver", "python3-selenium")
DEBIAN_PYTHON = "/usr/bin/python3"
LOOPBACK = "127.0.0.1"


# ---------------------------------------------------------------------------------------------
# Chromium, ChromeDriver and Selenium


def selenium_importable():
    try:
        import selenium  # noqa: F401
        return True
    except ImportError:
        return False


def use_debian_python_for_selenium():
    """Debian's python3-selenium is installed into /usr/lib/python3/dist-packages, which only
    Debian's own interpreter reads. When the `python3` found first on PATH is another one (pyenv, a
    virtual environment) and cannot import it, runs this script again under /usr/bin/python3."""
    if selenium_importable() or not os.access(DEBIAN_PYTHON, os.X_OK):
        return
    if os.path.realpath(sys.executable) == os.path.realpath(DEBIAN_PYTHON):
        return
    os.execv(DEBIAN_PYTHON, [DEBIAN_PYTHON, *sys.argv])


def browser_problems(chromium, chromedriver):
    """What is missing to drive Chromium, one line each; empty when everything is there."""
    problems = []
    if not chromium or not os.access(chromium, os.X_OK):
        problems.append(f"no Chromium at {chromium or '(not on PATH)'} (Debian package chromium)")
    if not chromedriver or not os.access(chromedriver, os.X_OK):
        problems.append(f"no ChromeDriver at {chromedriver or '(not on PATH)'} (Debian package chromium-driver)")
    if not selenium_importable():
        problems.append(f"Selenium cannot be imported by {sys.executable} (Debian package python3-selenium)")
    return problems


def require_browser(chromium, chromedriver, what):
    """Exits with status 2 and says what to install when the browser cannot be driven: these
    checks must fail loudly, never pass by skipping."""
    problems = browser_problems(chromium, chromedriver)
    if not problems:
        return
    print(f"{what}: Chromium, ChromeDriver and Selenium are needed:", file=sys.stderr)
    for problem in problems:
        print(f"  {problem}", file=sys.stderr)
    print(f"install them with: apt-get install -y {' '.join(DEBIAN_PACKAGES)}"
          " (make test installs them when run as root)", file=sys.stderr)
    sys.exit(2)


def add_browser_arguments(parser):
    parser.add_argument("--chromium", default=shutil.which("chromium"), help="the Chromium binary (default: chromium on PATH)")
    parser.add_argument("--chromedriver", default=shutil.which("chromedriver"),
                        help="the ChromeDriver binary (default: chromedriver on PATH)")


# ---------------------------------------------------------------------------------------------
# The service


def free_port():
    with socket.socket() as probe:
        probe.bind((LOOPBACK, 0))
        return probe.getsockname()[1]


class Bouncer:
    """One `bouncer serve` on a free loopback port and a temporary data directory, removed by
    `stop` (which keeps a copy of the log where asked)."""

    def __init__(self, binary, *serve_args, log_level="info"):
        self.binary = os.path.abspath(binary)
        self.serve_args = list(serve_args)
        self.log_level = log_level
        self.work = tempfile.mkdtemp(prefix="bouncer-dashboard-")
        self.data = os.path.join(self.work, "data")
        self.log_path = os.path.join(self.work, "bouncer.log")
        self.port = None
        self.process = None
        self._tokens = {}
        self._tokens_lock = threading.Lock()

    @property
    def base_url(self):
        return f"http://{LOOPBACK}:{self.port}"

    def start(self, timeout=60, port=None):
        """Serves on PORT (a free one when None: a peer that must know it first picks it)."""
        self.port = port or free_port()
        with open(self.log_path, "wb") as log:
            self.process = subprocess.Popen(
                [self.binary, "serve", "--port", str(self.port), "--data-dir", self.data,
                 "--log-level", self.log_level, *self.serve_args],
                stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"bouncer exited at start with {self.process.returncode}: {self.log_tail()}")
            if self._ready():
                return self
            time.sleep(0.05)  # nothing to wait on but the port: poll /readyz
        raise RuntimeError(f"bouncer was not ready within {timeout}s: {self.log_tail()}")

    def _ready(self):
        connection = http.client.HTTPConnection(LOOPBACK, self.port, timeout=1)
        try:
            connection.request("GET", "/readyz")
            return connection.getresponse().status == 200
        except OSError:
            return False
        finally:
            connection.close()

    def log_tail(self, lines=20):
        try:
            with open(self.log_path, "rb") as log:
                return b"\n".join(log.read().splitlines()[-lines:]).decode(errors="replace")
        except OSError:
            return ""

    def stop(self, keep_log_in=None):
        """SIGTERM (a graceful stop), then removes the data directory."""
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if keep_log_in and os.path.exists(self.log_path):
            shutil.copy(self.log_path, os.path.join(keep_log_in, "bouncer.log"))
        shutil.rmtree(self.work, ignore_errors=True)

    def token(self, user, role="user"):
        """A token for USER signed with this service's secret (minted once, then reused)."""
        with self._tokens_lock:
            if (user, role) in self._tokens:
                return self._tokens[(user, role)]
        token = self._mint(user, role, self.data)
        with self._tokens_lock:
            self._tokens[(user, role)] = token
        return token

    def foreign_token(self, user, role="admin"):
        """A well-formed token signed with another secret: what the service must refuse."""
        elsewhere = tempfile.mkdtemp(prefix="bouncer-dashboard-elsewhere-", dir=self.work)
        return self._mint(user, role, elsewhere)

    def _mint(self, user, role, data_dir):
        return subprocess.check_output(
            [self.binary, "token", "--user", user, "--role", role, "--ttl", "86400", "--data-dir", data_dir],
            text=True).strip()


# ---------------------------------------------------------------------------------------------
# The API, for seeding and checking


class ApiError(AssertionError):
    pass


class Api:
    """JSON requests to the service. Each thread keeps one keep-alive connection: the benchmark
    seeds 20,000 requests from a pool of threads, and a connection a request would leave that many
    sockets in TIME_WAIT."""

    def __init__(self, port):
        self.port = port
        self._local = threading.local()

    def call(self, method, path, body=None, token=None, expect=(200, 201, 204), headers=None):
        """Sends one request; returns the body, decoded when it is JSON (None when empty). Raises
        ApiError when the status is not one of EXPECT (pass expect=None to take any) with the
        status and body."""
        sent = dict(headers or {})
        if token:
            sent["Authorization"] = f"Bearer {token}"
        payload = None
        if body is not None:
            sent["Content-Type"] = "application/json"
            payload = json.dumps(body).encode()
        status, content_type, data = self._exchange(method, path, payload, sent)
        if expect is not None and status not in expect:
            raise ApiError(f"{method} {path}: {status} {data[:500].decode(errors='replace')}")
        if not data:
            return None
        return json.loads(data) if "json" in content_type else data.decode(errors="replace")

    def _exchange(self, method, path, payload, headers):
        # A keep-alive connection the server closed while it sat idle fails on first use: one
        # retry on a fresh connection covers that. Resending is safe for what is seeded here: a
        # message with its client id, or a flag, sent twice is kept once.
        for attempt in range(2):
            connection = self._connection()
            try:
                connection.request(method, path, body=payload, headers=headers)
                response = connection.getresponse()
                return response.status, response.getheader("Content-Type") or "", response.read()
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                connection.close()
                self._local.connection = None
                if attempt == 1:
                    raise

    def _connection(self):
        if getattr(self._local, "connection", None) is None:
            self._local.connection = http.client.HTTPConnection(LOOPBACK, self.port, timeout=30)
        return self._local.connection

    # The requests the tests and the benchmark seed with.

    def send(self, token, channel, text, message_id=None):
        body = {"text": text}
        if message_id:
            body["id"] = message_id
        return self.call("POST", f"/v1/channels/{quote(channel, safe='')}/messages", body, token)

    def flag(self, token, message_id, reason="spam", details=None):
        body = {"reason": reason}
        if details:
            body["details"] = details
        return self.call("POST", f"/v1/messages/{quote(message_id, safe='')}/flag", body, token)

    def create_rule(self, token, **rule):
        return self.call("POST", "/v1/rules", rule, token)

    def review(self, token, message_id, decision, **fields):
        return self.call("POST", f"/v1/messages/{quote(message_id, safe='')}/review", {"decision": decision, **fields}, token)

    def appeal(self, token, message_id, reason):
        return self.call("POST", f"/v1/messages/{quote(message_id, safe='')}/appeal", {"reason": reason}, token)

    def ban(self, token, user, reason="spam", duration_seconds=3600):
        return self.call("POST", f"/v1/users/{quote(user, safe='')}/ban",
                         {"reason": reason, "duration_seconds": duration_seconds}, token)

    def get(self, token, path):
        return self.call("GET", path, token=token, expect=(200,))


def poll(probe, timeout, interval=0.2):
    """Calls PROBE until it returns something truthy, for at most TIMEOUT seconds; returns that, or
    the last (falsy) answer. For the service's state, which has no event a client could wait on."""
    deadline = time.monotonic() + timeout
    while True:
        answer = probe()
        if answer or time.monotonic() >= deadline:
            return answer
        time.sleep(interval)


# ---------------------------------------------------------------------------------------------
# The browser

PHONE = {"width": 390, "height": 844, "pixelRatio": 2.0}


class Browser:
    """A headless Chromium with the Chrome performance log on, so that every request the page makes
    (fetches, the event stream, images, fonts, failed ones too) is recorded; the log is drained into
    `requests` and `responses` as it is read."""

    def __init__(self, driver):
        self.driver = driver
        self.requests = []   # URLs, in the order the page asked for them
        self.responses = []  # (URL, status)
        self.console = []    # the browser log's entries: {"level", "message", "source", ...}
        self.closed = False

    def drain(self):
        for entry in self.driver.get_log("performance"):
            event = json.loads(entry["message"])["message"]
            method, params = event.get("method"), event.get("params", {})
            if method == "Network.requestWillBeSent":
                self.requests.append(params["request"]["url"])
            elif method == "Network.webSocketCreated":
                self.requests.append(params["url"])
            elif method == "Network.responseReceived":
                self.responses.append((params["response"]["url"], params["response"]["status"]))
        self.console.extend(self.driver.get_log("browser"))

    def foreign_requests(self):
        """The requests that went to a host other than 127.0.0.1 (data:, blob: and about: URLs
        never leave the page)."""
        self.drain()
        return [url for url in self.requests
                if urlsplit(url).scheme not in ("data", "blob", "about") and urlsplit(url).hostname != LOOPBACK]

    def responded(self, path_prefix):
        """Whether a response to a request whose path starts with PATH_PREFIX has come in."""
        self.drain()
        return any(urlsplit(url).path.startswith(path_prefix) for url, _ in self.responses)

    def errors(self, sources=None):
        """SEVERE console entries, from the given sources (e.g. "javascript", "network") or all."""
        self.drain()
        return [entry for entry in self.console
                if entry["level"] == "SEVERE" and (sources is None or entry.get("source") in sources)]

    def quit(self):
        self.closed = True
        self.driver.quit()


class BrowserFactory:
    def __init__(self, chromium, chromedriver):
        self.chromium = chromium
        self.chromedriver = chromedriver

    def open(self, locale="en-US", phone=False):
        """A fresh browser (new profile: empty storage and cache) asking for LOCALE, at 1280x900 or
        as a 390x844 phone."""
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service

        options = webdriver.ChromeOptions()
        options.binary_location = self.chromium
        for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,900",
                         f"--lang={locale}",
                         # Keep Chromium's own background traffic out of the way.
                         "--no-first-run", "--disable-background-networking", "--disable-component-update",
                         "--disable-sync", "--disable-default-apps"):
            options.add_argument(argument)
        # --lang sets navigator.language; this preference sets the Accept-Language header the API
        # negotiates the locale from.
        options.add_experimental_option("prefs", {"intl.accept_languages": locale})
        if phone:
            # A phone's viewport and pixel ratio, with touch: a page without a width=device-width
            # viewport is laid out 980 pixels wide here, as on a real phone.
            options.add_experimental_option("mobileEmulation", {"deviceMetrics": PHONE})
        options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
        options.add_experimental_option("perfLoggingPrefs", {"enableNetwork": True, "enablePage": False})
        return Browser(webdriver.Chrome(service=Service(self.chromedriver), options=options))


# ---------------------------------------------------------------------------------------------
# The dashboard, through the hooks of Tests/dashboard/HOOKS.md

PAGES = ("queue", "appeals", "rules", "activity", "users", "settings")


def wait(driver, timeout=10, poll_frequency=0.1):
    """An explicit wait that also retries when an element it read was replaced meanwhile (the page
    redraws its lists as events come in)."""
    from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException
    from selenium.webdriver.support.ui import WebDriverWait
    return WebDriverWait(driver, timeout, poll_frequency=poll_frequency,
                         ignored_exceptions=(NoSuchElementException, StaleElementReferenceException))


def visible(driver, css):
    """The first element matching CSS that is displayed, or None."""
    from selenium.webdriver.common.by import By
    for element in driver.find_elements(By.CSS_SELECTOR, css):
        if element.is_displayed():
            return element
    return None


def reading(driver, read, timeout=10):
    """READ(driver), read again when an element it touched was replaced meanwhile: what a live page
    shows is read in one go, never half from the list it replaced."""
    return wait(driver, timeout).until(lambda d: (read(d),), f"the page kept redrawing for {timeout}s")[0]


def texts(driver, css):
    """The text of each element matching CSS."""
    from selenium.webdriver.common.by import By
    return reading(driver, lambda d: [element.text for element in d.find_elements(By.CSS_SELECTOR, css)])


def wait_visible(driver, css, timeout=10):
    return wait(driver, timeout).until(lambda d: visible(d, css), f"nothing visible matches {css} within {timeout}s")


def on_visible(driver, css, act, timeout=10):
    """ACT(element) on the first visible element matching CSS, and its result; found again and
    acted on again if the page redrew it meanwhile (a live list replaces its items as events come in)."""
    def attempt(d):
        element = visible(d, css)
        return None if element is None else (act(element),)
    return wait(driver, timeout).until(attempt, f"nothing visible matches {css} within {timeout}s")[0]


def visible_text(driver, css, timeout=10):
    """The text of the first visible element matching CSS."""
    return on_visible(driver, css, lambda element: element.text, timeout)


def click_visible(driver, css, timeout=10):
    """Clicks the first visible element matching CSS."""
    on_visible(driver, css, lambda element: element.click(), timeout)


def open_dashboard(driver, base_url, page="queue"):
    driver.get(f"{base_url}/dashboard#/{page}")


def sign_in(driver, base_url, token, page="queue"):
    """Opens the dashboard at PAGE and signs in with TOKEN through the form; returns the nav."""
    open_dashboard(driver, base_url, page)
    submit_token(driver, token)
    return wait_visible(driver, "nav#nav")


def submit_token(driver, token):
    field = wait_visible(driver, "#token-input")
    field.clear()
    field.send_keys(token)
    visible(driver, "#signin-button").click()
