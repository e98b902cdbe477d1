"""A real Synapse for the tests: its own config on loopback with its SQLite database, the
synapse-http-antispam module pointed at Bouncer, users registered with register_new_matrix_user.
Nothing leaves 127.0.0.1: no key servers, no federation, no stats."""
import http.client
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

LOOPBACK = "127.0.0.1"

# The callbacks Bouncer answers. Listing them is what keeps Synapse starting: it refuses a module
# that registers a callback it does not know (`accept_make_join`, which this module has).
ENABLED_CALLBACKS = [
    "check_event_for_spam", "user_may_join_room", "user_may_invite", "user_may_send_3pid_invite",
    "user_may_create_room", "user_may_create_room_alias", "user_may_publish_room",
]


class Synapse:
    """BOUNCER_PORT None: no spam checker at all (the benchmark's other side)."""

    def __init__(self, python, port, bouncer_port, secret):
        self.python = python
        self.port = port
        self.bouncer_port = bouncer_port
        self.secret = secret
        self.work = tempfile.mkdtemp(prefix="bouncer-synapse-")
        self.config = os.path.join(self.work, "homeserver.yaml")
        # Synapse's own log (its generated log config writes homeserver.log in its directory) and
        # what it prints.
        self.log_path = os.path.join(self.work, "stdout.log")
        self.process = None

    @property
    def base_url(self):
        return f"http://{LOOPBACK}:{self.port}"

    def configure(self):
        subprocess.run([self.python, "-m", "synapse.app.homeserver", "--server-name", "localhost", "--config-path", self.config,
                        "--generate-config", "--report-stats=no", "--data-directory", self.work],
                       check=True, capture_output=True, cwd=self.work)
        extra = {
            "listeners": [{"port": self.port, "bind_addresses": [LOOPBACK], "type": "http", "tls": False, "x_forwarded": False,
                           "resources": [{"names": ["client"], "compress": False}]}],
            "trusted_key_servers": [],
            "suppress_key_server_warning": True,
            "federation_domain_whitelist": [],
            "enable_registration": False,
            "url_preview_enabled": False,
            "presence": {"enabled": False},
            # Synapse's own limits are not what is tested: Bouncer's are.
            "rc_message": {"per_second": 1000, "burst_count": 1000},
            "rc_login": {"address": {"per_second": 1000, "burst_count": 1000}, "account": {"per_second": 1000, "burst_count": 1000},
                         "failed_attempts": {"per_second": 1000, "burst_count": 1000}},
            "rc_joins": {"local": {"per_second": 1000, "burst_count": 1000}, "remote": {"per_second": 1000, "burst_count": 1000}},
            "rc_invites": {"per_room": {"per_second": 1000, "burst_count": 1000}, "per_user": {"per_second": 1000, "burst_count": 1000}},
            "rc_registration": {"per_second": 1000, "burst_count": 1000},
            "modules": [] if self.bouncer_port is None else [{
                "module": "synapse_http_antispam.HTTPAntispam",
                "config": {
                    "base_url": f"http://{LOOPBACK}:{self.bouncer_port}/v1/integrations/matrix",
                    "authorization": self.secret,
                    "enabled_callbacks": ENABLED_CALLBACKS,
                    # The module lets events through when Bouncer cannot be reached unless told:
                    # moderation fails closed.
                    "fail_open": {"check_event_for_spam": False},
                },
            }],
        }
        import yaml  # Synapse's own dependency: this runs in its venv
        with open(self.config) as generated:
            config = yaml.safe_load(generated)
        config.update(extra)
        with open(self.config, "w") as written:
            yaml.safe_dump(config, written)
        return self

    def start(self, timeout=120):
        with open(self.log_path, "wb") as log:
            self.process = subprocess.Popen([self.python, "-m", "synapse.app.homeserver", "-c", self.config], stdout=log,
                                            stderr=subprocess.STDOUT, cwd=self.work)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"Synapse exited at start with {self.process.returncode}: {self.log_tail()}")
            if self._versions_answered():
                return self
            time.sleep(0.2)  # nothing to wait on but the port
        raise RuntimeError(f"Synapse was not ready within {timeout}s: {self.log_tail()}")

    def _versions_answered(self):
        connection = http.client.HTTPConnection(LOOPBACK, self.port, timeout=2)
        try:
            connection.request("GET", "/_matrix/client/versions")
            return connection.getresponse().status == 200
        except OSError:
            return False
        finally:
            connection.close()

    def register(self, user, password, admin=False):
        subprocess.run([os.path.join(os.path.dirname(self.python), "register_new_matrix_user"), "-c", self.config,
                        "-u", user, "-p", password, "--admin" if admin else "--no-admin", self.base_url],
                       check=True, capture_output=True, timeout=120)
        return f"@{user}:localhost"

    def log_tail(self, lines=30):
        for path in (self.log_path, os.path.join(self.work, "homeserver.log")):
            try:
                with open(path, "rb") as log:
                    return b"\n".join(log.read().splitlines()[-lines:]).decode(errors="replace")
            except OSError:
                continue
        return ""

    def stop(self, keep_log_in=None):
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if keep_log_in:
            for name in ("homeserver.log", "stdout.log"):
                path = os.path.join(self.work, name)
                if os.path.exists(path):
                    shutil.copy(path, os.path.join(keep_log_in, "synapse-" + name))
        shutil.rmtree(self.work, ignore_errors=True)


def python_with_synapse():
    """Whether this interpreter has Synapse and the client library."""
    try:
        import nio  # noqa: F401
        import synapse  # noqa: F401
        return True
    except ImportError:
        return False


if __name__ == "__main__":
    print("a module of Tests/integrations/run.py", file=sys.stderr)
    sys.exit(2)
