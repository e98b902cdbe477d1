#!/usr/bin/env python3
"""The moderators' dashboard (GET /dashboard) in a real browser: headless Chromium, driven by
Selenium, against the real binary on a fresh store.

    python3 Tests/dashboard/run.py --binary .build/debug/bouncer [--artifacts DIR] [unittest options]

Unittest's own options follow, e.g. `-k queue` to run the tests whose names hold "queue".
Screenshots of every page (desktop, phone width, Arabic), one of each failed test's browser and
the service's log are written to the artifacts directory (default .build/test-artifacts/dashboard).
Without Chromium, ChromeDriver or Selenium it fails and names the Debian packages to install: it
never passes by skipping. The scenarios are in scenarios.py; the hooks they use in HOOKS.md."""
import argparse
import glob
import os
import sys
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

import harness  # noqa: E402


class ScreenshotOnFailure(unittest.TextTestResult):
    """Keeps a screenshot of each browser of a test that failed. Python 3.11 and later report a
    failure as it happens, before the test's cleanups close its browsers."""

    def addFailure(self, test, err):
        self._screenshot(test)
        super().addFailure(test, err)

    def addError(self, test, err):
        self._screenshot(test)
        super().addError(test, err)

    def addSubTest(self, test, subtest, err):
        if err is not None:
            self._screenshot(test)
        super().addSubTest(test, subtest, err)

    @staticmethod
    def _screenshot(test):
        save = getattr(test, "save_failure_screenshots", None)
        if save:
            save()


def parse_arguments():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build/debug/bouncer"), help="the bouncer binary")
    parser.add_argument("--artifacts", default=os.path.join(ROOT, ".build/test-artifacts/dashboard"),
                        help="where screenshots and the service's log go")
    harness.add_browser_arguments(parser)
    return parser.parse_known_args()


def prepare_artifacts(directory):
    """Creates DIRECTORY and removes the screenshots and log an earlier run left in it (and nothing
    else: it may be a directory of the caller's)."""
    os.makedirs(directory, exist_ok=True)
    for stale in glob.glob(os.path.join(directory, "*.png")) + [os.path.join(directory, "bouncer.log")]:
        if os.path.exists(stale):
            os.remove(stale)


def check_browser_starts(browsers, service):
    """One browser loads the service's OpenAPI document first, so that a Chromium that cannot start
    here fails once, with its reason, instead of in every test."""
    try:
        browser = browsers.open()
    except Exception as error:  # SessionNotCreatedException, a driver that exits: report and stop
        # A WebDriverException's message without the driver's native stack trace.
        raise SystemExit(f"dashboard tests: Chromium did not start: {getattr(error, 'msg', None) or error}")
    try:
        browser.driver.get(f"{service.base_url}/openapi.json")
        if "openapi" not in browser.driver.page_source:
            raise SystemExit("dashboard tests: Chromium did not load the service's /openapi.json")
    finally:
        browser.quit()


def dashboard_served(api):
    try:
        api.call("GET", "/dashboard", expect=(200,))
        return True
    except harness.ApiError as error:
        print(f"dashboard tests: {error}: this binary serves no dashboard", file=sys.stderr)
        return False


def run_scenarios(service, api, browsers, options, unittest_arguments):
    import scenarios  # imports Selenium: only once require_browser has passed
    scenarios.DashboardTest.context = scenarios.Context(
        base_url=service.base_url, service=service, api=api, browsers=browsers, artifacts=options.artifacts)
    runner = unittest.TextTestRunner(verbosity=2, resultclass=ScreenshotOnFailure)
    program = unittest.main(module=scenarios, argv=[sys.argv[0], *unittest_arguments], testRunner=runner, exit=False)
    result = program.result
    # A test with failed subtests is listed once per subtest: count tests, not entries.
    failed = {getattr(test, "test_case", test).id() for test, _ in result.failures + result.errors}
    print(f"dashboard tests: {result.testsRun - len(failed)} passed, {len(failed)} failed")
    return result.wasSuccessful() and result.testsRun > 0


def run(options, unittest_arguments):
    """Starts the service, checks that Chromium starts and that there is a dashboard, runs the
    scenarios, stops the service. True when every test passed."""
    prepare_artifacts(options.artifacts)
    service = harness.Bouncer(options.binary).start()
    try:
        api = harness.Api(service.port)
        browsers = harness.BrowserFactory(options.chromium, options.chromedriver)
        check_browser_starts(browsers, service)
        return dashboard_served(api) and run_scenarios(service, api, browsers, options, unittest_arguments)
    finally:
        service.stop(keep_log_in=options.artifacts)


def main():
    harness.use_debian_python_for_selenium()
    options, unittest_arguments = parse_arguments()
    harness.require_browser(options.chromium, options.chromedriver, "the dashboard tests")
    if not os.access(options.binary, os.X_OK):
        print(f"dashboard tests: no bouncer binary at {options.binary} (swift build)", file=sys.stderr)
        return 2
    started = time.monotonic()
    try:
        passed = run(options, unittest_arguments)
    finally:
        print(f"dashboard tests: wall time {time.monotonic() - started:.1f}s; screenshots and log in {options.artifacts}")
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
