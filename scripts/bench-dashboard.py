#!/usr/bin/env python3
"""The moderators' dashboard on a busy store: 10,000 open flags (10,000 messages from a few hundred
users across 50 channels, each flagged by another user), then in headless Chromium:

  (a) what the dashboard's own files weigh (the page and what it loads, not the API's answers),
      summed from the Resource Timing entries: transferred, encoded and decoded (uncompressed)
      sizes; goal: under 250 KB uncompressed. And any request not to 127.0.0.1; goal: none.
  (b) the time from navigation start to a usable review queue (an `li.queue-item` listed and
      `#queue-detail[data-message-id]` filled) on a reload with the token already in
      sessionStorage, 5 loads, median and max; goal: under 1 s.

    python3 scripts/bench-dashboard.py --binary .build/release/bouncer

Uses the browser tests' harness (Tests/dashboard/harness.py) and the same Debian packages:
chromium, chromium-driver, python3-selenium."""
import argparse
import os
import statistics
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlsplit

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "Tests", "dashboard"))

import harness  # noqa: E402

REASONS = ("spam", "harassment", "hate", "inappropriate", "other")
GOAL_BYTES = 250_000
GOAL_SECONDS = 1.0
USABLE_TIMEOUT = 30

# Installed before each document's own scripts run: records, in milliseconds since navigation
# start, the moment the queue becomes usable. A MutationObserver sees the change as it is made,
# where polling from WebDriver would add its own delay to every figure.
RECORD_USABLE_JS = """
(() => {
  const usable = () => document.querySelector('li.queue-item') &&
    document.querySelector('#queue-detail[data-message-id]:not([data-message-id=""])');
  const observer = new MutationObserver(() => {
    if (usable()) { window.bouncerQueueUsableAt = performance.now(); observer.disconnect(); }
  });
  observer.observe(document, {childList: true, subtree: true, attributes: true});
})();"""

TIMING_ENTRIES_JS = """
return performance.getEntriesByType('navigation').concat(performance.getEntriesByType('resource'))
  .map(e => ({url: e.name, transfer: e.transferSize, encoded: e.encodedBodySize, decoded: e.decodedBodySize}));"""


def parse_arguments():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build/release/bouncer"))
    parser.add_argument("--flags", type=int, default=10_000, help="open flags, one a message")
    parser.add_argument("--users", type=int, default=300)
    parser.add_argument("--channels", type=int, default=50)
    parser.add_argument("--runs", type=int, default=5, help="timed loads of the queue")
    parser.add_argument("--threads", type=int, default=16, help="concurrent seeding requests")
    harness.add_browser_arguments(parser)
    return parser.parse_args()


def seed(service, api, options):
    """Message i comes from user i mod USERS in channel i mod CHANNELS and is flagged by another
    user, a different one each round through the users."""
    names = [f"user{n}" for n in range(options.users)]
    with ThreadPoolExecutor(options.threads) as pool:
        tokens = list(pool.map(service.token, names))

        def message_and_flag(i):
            author = i % options.users
            reporter = (author + 1 + (i // options.users) % (options.users - 1)) % options.users
            message = api.send(tokens[author], f"bench:channel{i % options.channels}",
                               f"message {i} from {names[author]}", message_id=f"bench-{i}")
            api.flag(tokens[reporter], message["id"], REASONS[i % len(REASONS)])

        list(pool.map(message_and_flag, range(options.flags)))


def wait_usable(driver):
    """The recorded time, in ms since navigation start, once the queue is usable."""
    return harness.wait(driver, USABLE_TIMEOUT).until(
        lambda d: d.execute_script("return window.bouncerQueueUsableAt;"),
        f"the review queue was not usable within {USABLE_TIMEOUT}s")


def own_files(entries, base_url):
    """The Resource Timing entries of the dashboard's own files: same origin, not the API."""
    origin = urlsplit(base_url).netloc
    return [entry for entry in entries
            if urlsplit(entry["url"]).netloc == origin and not urlsplit(entry["url"]).path.startswith("/v1/")]


def report_transfer(browser, base_url):
    files = own_files(browser.driver.execute_script(TIMING_ENTRIES_JS), base_url)
    for entry in files:
        print(f"  {urlsplit(entry['url']).path}: {entry['decoded']:,} bytes uncompressed, "
              f"{entry['encoded']:,} encoded, {entry['transfer']:,} transferred")
    decoded = sum(entry["decoded"] for entry in files)
    encoded = sum(entry["encoded"] for entry in files)
    transferred = sum(entry["transfer"] for entry in files)
    verdict = "met" if decoded < GOAL_BYTES else "NOT met"
    print(f"dashboard files: {len(files)}, {decoded / 1000:.1f} KB uncompressed, {encoded / 1000:.1f} KB encoded, "
          f"{transferred / 1000:.1f} KB transferred (goal: under {GOAL_BYTES // 1000} KB uncompressed: {verdict})")
    # Beside the page's own files: what the API answered while the queue came up (the event
    # stream, open for as long as the page is, is left out).
    entries = browser.driver.execute_script(TIMING_ENTRIES_JS)
    answers = [entry for entry in entries if urlsplit(entry["url"]).path.startswith("/v1/")
               and not urlsplit(entry["url"]).path.startswith("/v1/events/stream")]
    print(f"API answers on the first load: {len(answers)}, {sum(entry['decoded'] for entry in answers) / 1000:.1f} KB "
          f"({', '.join(sorted({urlsplit(entry['url']).path for entry in answers}))})")
    foreign = browser.foreign_requests()
    print(f"requests not to 127.0.0.1: {', '.join(foreign) if foreign else 'none'} "
          f"(goal: none: {'NOT met' if foreign else 'met'})")


def report_time_to_queue(browser, runs):
    driver = browser.driver
    # Every load fetches the page's files again, as a first visit would; only the sign-in is
    # skipped, the token being in sessionStorage already.
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd("Network.setCacheDisabled", {"cacheDisabled": True})
    times = []
    for _ in range(runs):
        driver.refresh()
        times.append(wait_usable(driver) / 1000)
    median, worst = statistics.median(times), max(times)
    verdict = "met" if worst < GOAL_SECONDS else "NOT met"
    print(f"time to a usable review queue, {runs} loads: median {median * 1000:.0f} ms, max {worst * 1000:.0f} ms "
          f"(goal: under {GOAL_SECONDS:.0f} s: {verdict}); each: {', '.join(f'{t * 1000:.0f}' for t in times)} ms")


def measure(service, api, options):
    api.call("GET", "/dashboard", expect=(200,))  # before the seeding: a binary without one fails at once
    started = time.monotonic()
    seed(service, api, options)
    print(f"seeded {options.flags:,} messages and open flags from {options.users} users in {options.channels} channels "
          f"in {time.monotonic() - started:.1f}s")
    browser = harness.BrowserFactory(options.chromium, options.chromedriver).open()
    try:
        browser.driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": RECORD_USABLE_JS})
        harness.sign_in(browser.driver, service.base_url, service.token("bench-moderator", "moderator"))
        wait_usable(browser.driver)
        report_transfer(browser, service.base_url)
        report_time_to_queue(browser, options.runs)
    finally:
        browser.quit()


def main():
    harness.use_debian_python_for_selenium()
    options = parse_arguments()
    harness.require_browser(options.chromium, options.chromedriver, "the dashboard benchmark")
    from selenium.common.exceptions import WebDriverException
    print(f"== the dashboard with {options.flags:,} open flags")
    # No per-user send rate: the seeding sends dozens of messages a second from each user.
    service = harness.Bouncer(options.binary, "--send-rate-per-user", "0", log_level="warn").start()
    try:
        measure(service, harness.Api(service.port), options)
    except (harness.ApiError, WebDriverException) as error:
        print(f"dashboard benchmark: {getattr(error, 'msg', None) or error}", file=sys.stderr)
        return 1
    finally:
        service.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
