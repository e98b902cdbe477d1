# Bouncer: the two commands are `make run` and `make test`. Both install the Debian packages
# they need when run as root, and name them otherwise.

SWIFT ?= swift
BUILD_PACKAGES := libsqlite3-dev libssl-dev libvectorscan-dev libpq-dev libcurl4-openssl-dev pkg-config
TEST_PACKAGES := python3 python3-venv curl sqlite3 postgresql pgbouncer pg-auto-failover-cli postgresql-15-auto-failover chromium chromium-driver python3-selenium tmux gdb
BENCH_PACKAGES := wrk nginx-light curl postgresql pgbouncer chromium chromium-driver python3-selenium linux-perf heaptrack

.PHONY: run test test-steps api-test soak fuzz test-sanitize test-sanitize-steps sanitize-short sanitize-short-steps build release bench deps clean docker-smoke help

help:
	@echo "make run           build (release) and serve on http://127.0.0.1:8080 with ./data/bouncer.sqlite3"
	@echo "make test          every test: unit, JSONTestSuite, black-box, abuse (short), the dashboard in Chromium,"
	@echo "                   bouncer-chat in tmux,"
	@echo "                   a real Synapse and Stream's hook, the API against its OpenAPI document,"
	@echo "                   a short fuzz of each target, and the unit tests under ASan and TSan"
	@echo "make api-test      schemathesis (PyPI) against the running binary and /openapi.json, and a client generated from it"
	@echo "make soak          the abuse tests at full size: crashes, shutdown, slow/idle clients, overload, hostile input"
	@echo "make fuzz          libFuzzer on the HTTP parser, JSON, the .strings parser, the normalizer, the rules engine and rate rules' message features (FUZZ_SECONDS each, default 60)"
	@echo "make test-sanitize unit, black-box and abuse tests under AddressSanitizer, then ThreadSanitizer"
	@echo "make bench         GET /healthz against nginx, the rules engine against a naive matcher, the send path"
	@echo "                   against a one-transaction-per-message loop, the moderators' queries on a large store,"
	@echo "                   a restart with 100,000 rules, the evasion corpus beside two peer filters, and"
	@echo "                   Synapse's sends with and without Bouncer, and Stream's hook at 1,000 calls a second"
	@echo "make docker-smoke  build the container image and smoke-test it, alone and as the compose file's cluster and ha profiles (needs a Docker engine)"

deps:
	@command -v $(SWIFT) >/dev/null || { echo "Swift 6 is needed: https://www.swift.org/install/linux/"; exit 1; }
	@scripts/ensure-packages.sh $(BUILD_PACKAGES)

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

run: release
	.build/release/bouncer serve

# The black-box tests start many copies of the binary, and some in-process suites keep both cores
# busy (the store's load and fault tests: eight writers, readers that never pause; the engine's:
# dozens of rule sets compiled, texts of 20,000 characters): each runs after the other in-process
# tests, not beside them, so the timing tests of those are not starved of the two cores CI has.
# Suites say what they need, and each step runs those whose needs it meets:
# - by test target: HTTPServerTests (live sockets timed against deadlines) run first and alone,
#   ExclusiveCoresTests (throughput and timings under load) last and alone, the other in-process
#   targets beside each other between them (`unit-tests` below, under the sanitizers too), among
#   them RouteTests, the routes through the whole service in-process on SQLite;
#   BlackBoxTests and BouncerKitTests start the real binary and run after them. On PostgreSQL
#   RouteTests run again before BlackBoxTests (in a runner of their own: in-process services
#   share the runner's threads, and black-box suites time their processes): alone, through
#   PgBouncer and as three instances.
# - by trait (Tests/TestSupport/TestNeeds.swift): `.postgresOnly`, `.oneInstance` (a suite about
#   the one process it starts sits out the run against three instances) and `.alone`
#   (DatabaseOutageTests stops a database server under load and times the recovery: it runs in a
#   step of its own, after the other black-box suites).
# The PostgreSQL store's tests run against a throwaway cluster started for the run and stopped
# after it (scripts/with-postgres.sh; a target run inside another one shares its cluster).
# The PostgreSQL black-box suites run once more through PgBouncer in transaction pooling mode
# (scripts/with-pgbouncer.sh), as operators run it: the services listen for changes directly
# (--database-listen-url). Then a failover: three instances under send load on a pg_auto_failover
# primary and synchronous standby (scripts/postgres-ha.sh), whose primary is killed (Tests/failover).
# Restores and upgrades on both stores (Tests/stores): backups taken under load restored and read
# back alike, and stores made by an earlier release (fixtures kept as SQL dumps) upgraded in place.
# The black-box suites run a third time with each service three instances on one PostgreSQL
# database, called in turn.
define unit-tests
	$(LIMITED) $(1) --filter HTTPServerTests
	$(LIMITED) $(1) --skip 'HTTPServerTests|ExclusiveCoresTests|BlackBoxTests|BouncerKitTests'
	$(LIMITED) $(1) --filter ExclusiveCoresTests
endef

# Every test step runs with a time limit (scripts/time-limit.sh), some times what the slowest
# takes: a step that hangs fails within it and prints what it was doing (its processes, the
# tests that had not ended and where the test runner's threads were), where it would otherwise
# hold the run to CI's own limit with nothing to show. Builds have none.
STEP_LIMIT ?= 900
LIMITED = scripts/time-limit.sh $(STEP_LIMIT) env

test: deps
	@scripts/ensure-packages.sh $(TEST_PACKAGES)
	@scripts/webhook-receiver-venv.sh
	scripts/with-postgres.sh $(MAKE) --no-print-directory test-steps

test-steps:
	$(SWIFT) build --build-tests
	scripts/json-test-suite.sh >/dev/null
	$(call unit-tests,BOUNCER_JSON_TEST_SUITE=$$(scripts/json-test-suite.sh) $(SWIFT) test --skip-build)
	$(LIMITED) $(SWIFT) test --skip-build --filter BlackBoxTests
	$(LIMITED) $(SWIFT) test --skip-build --filter BouncerKitTests
	$(LIMITED) BOUNCER_TEST_TRANSPORT=wire $(SWIFT) test --skip-build --filter RouteTests
	$(LIMITED) BOUNCER_TEST_STORE=postgres $(SWIFT) test --skip-build --filter RouteTests
	$(LIMITED) BOUNCER_TEST_STORE=postgres $(SWIFT) test --skip-build --filter BlackBoxTests
	$(LIMITED) BOUNCER_TEST_STORE=postgres BOUNCER_TEST_ALONE=1 $(SWIFT) test --skip-build --filter DatabaseOutageTests
	$(LIMITED) BOUNCER_TEST_STORE=postgres scripts/with-pgbouncer.sh sh -c '$(SWIFT) test --skip-build --filter RouteTests && $(SWIFT) test --skip-build --filter BlackBoxTests'
	$(LIMITED) python3 Tests/failover/run.py --binary .build/debug/bouncer
	$(LIMITED) python3 Tests/stores/run.py --binary .build/debug/bouncer
	$(LIMITED) BOUNCER_TEST_STORE=postgres BOUNCER_TEST_INSTANCES=3 $(SWIFT) test --skip-build --no-parallel --filter RouteTests
	$(LIMITED) BOUNCER_TEST_STORE=postgres BOUNCER_TEST_INSTANCES=3 $(SWIFT) test --skip-build --no-parallel --filter BlackBoxTests
	$(LIMITED) python3 Tests/abuse/run.py --profile short --binary .build/debug/bouncer
	$(LIMITED) python3 Tests/dashboard/run.py --binary .build/debug/bouncer
	$(LIMITED) python3 Tests/chat/run.py --binary .build/debug/bouncer --chat .build/debug/bouncer-chat
	scripts/integrations-venv.sh >/dev/null
	$(LIMITED) $$(scripts/integrations-venv.sh) Tests/integrations/run.py --binary .build/debug/bouncer
	$(LIMITED) python3 scripts/compare-filters.py --only bouncer --check --binary .build/debug/bouncer
	$(LIMITED) BOUNCER_BINARY=.build/debug/bouncer scripts/api-conformance.sh
	scripts/openapi-client-venv.sh >/dev/null
	$(LIMITED) $$(scripts/openapi-client-venv.sh) Tests/openapi-client/run.py --binary .build/debug/bouncer
	scripts/scoring-clients-venv.sh >/dev/null
	$(LIMITED) $$(scripts/scoring-clients-venv.sh) Tests/scoring-apis/run.py --binary .build/debug/bouncer
	$(LIMITED) FUZZ_RUNS=100000 FUZZ_SEED=1 scripts/fuzz.sh
	$(MAKE) --no-print-directory sanitize-short-steps

# The abuse tests (Tests/abuse) at full size, on the release build: 50 SIGKILLs, 10,000 idle
# connections, 500 slow clients against the default header timeout, and so on.
soak: release
	@scripts/ensure-packages.sh $(TEST_PACKAGES)
	python3 Tests/abuse/run.py --profile soak --binary .build/release/bouncer

api-test: build
	@scripts/ensure-packages.sh $(TEST_PACKAGES)
	BOUNCER_BINARY=.build/debug/bouncer scripts/api-conformance.sh
	scripts/openapi-client-venv.sh >/dev/null
	$$(scripts/openapi-client-venv.sh) Tests/openapi-client/run.py --binary .build/debug/bouncer

bench: release
	@scripts/ensure-packages.sh $(BENCH_PACKAGES)
	scripts/bench-healthz.sh
	scripts/bench-healthz-cpu.sh
	@echo "== rules engine, one core"
	.build/release/RulesBenchmark
	scripts/bench-send.sh
	scripts/profile-send.sh
	scripts/count-send-allocations.sh
	scripts/bench-send-postgres.sh
	scripts/bench-webhooks.sh
	scripts/bench-rate-rules.sh
	scripts/bench-harm-scores.sh
	scripts/harm-quality.sh .build/release/bouncer
	python3 scripts/bench-harm-training.py --binary .build/release/bouncer
	scripts/bench-dry-run.sh
	scripts/bench-event-stream.sh
	scripts/bench-moderation.sh
	scripts/bench-restart.sh
	scripts/bench-backup.sh
	@echo "== the labelled evasion corpus: Bouncer beside better-profanity and glin-profanity (PyPI)"
	python3 scripts/compare-filters.py --binary .build/release/bouncer
	python3 scripts/bench-dashboard.py --binary .build/release/bouncer
	scripts/integrations-venv.sh >/dev/null
	$$(scripts/integrations-venv.sh) scripts/bench-integrations.py --binary .build/release/bouncer

fuzz: deps
	scripts/fuzz.sh

# Each sanitizer builds in its own scratch directory, so the plain build is left alone. The
# binaries the black-box and abuse tests start are sanitized too; every report, theirs included,
# goes to $(SANITIZER_LOGS), and any report fails the target. LeakSanitizer is off: it cannot
# follow Swift's tagged references (a String keeps flags in its pointer's spare bits) and reports
# live runtime objects as leaks. Under ThreadSanitizer the black-box tests run the sanitized
# binary from the plain test runner: TSan's runtime itself crashes in a runner that has started
# thousands of Foundation threads and processes. Waits for the service are stretched
# (BOUNCER_TEST_TIME_SCALE), as everything runs several times slower.
SANITIZER_LOGS := $(CURDIR)/.build/sanitizer-logs
SANITIZED_TEST = BOUNCER_TEST_TIME_SCALE=4 $(SWIFT) test --skip-build
# The black-box and abuse tests take several times as long under a sanitizer, and so may their steps.
LIMITED_SANITIZED = scripts/time-limit.sh $$(( $(STEP_LIMIT) * 4 )) env
ASAN_ENV = ASAN_OPTIONS=detect_leaks=0:log_path=$(SANITIZER_LOGS)/asan
TSAN_ENV = TSAN_OPTIONS=log_path=$(SANITIZER_LOGS)/tsan
CHECK_SANITIZER_LOGS = if ls $(SANITIZER_LOGS)/* >/dev/null 2>&1; then head -50 $(SANITIZER_LOGS)/*; \
	echo "sanitizer reports above"; exit 1; else echo "no AddressSanitizer or ThreadSanitizer reports"; fi
ABUSE_UNDER_SANITIZER = python3 Tests/abuse/run.py --only crash,shutdown,connection-cap,send-flood,hostile-input

test-sanitize: deps
	@scripts/ensure-packages.sh $(TEST_PACKAGES)
	@scripts/webhook-receiver-venv.sh
	scripts/with-postgres.sh $(MAKE) --no-print-directory test-sanitize-steps

test-sanitize-steps:
	rm -rf $(SANITIZER_LOGS) && mkdir -p $(SANITIZER_LOGS)
	$(SWIFT) build --build-tests
	$(SWIFT) build --build-tests --sanitize=address --scratch-path .build/asan
	$(call unit-tests,$(ASAN_ENV) $(SANITIZED_TEST) --sanitize=address --scratch-path .build/asan)
	$(LIMITED_SANITIZED) $(ASAN_ENV) $(SANITIZED_TEST) --sanitize=address --scratch-path .build/asan --filter 'BlackBoxTests|BouncerKitTests'
	$(LIMITED_SANITIZED) $(ASAN_ENV) $(ABUSE_UNDER_SANITIZER) --binary .build/asan/debug/bouncer
	$(SWIFT) build --build-tests --sanitize=thread --scratch-path .build/tsan
	$(call unit-tests,$(TSAN_ENV) $(SANITIZED_TEST) --sanitize=thread --scratch-path .build/tsan)
	$(LIMITED_SANITIZED) $(TSAN_ENV) BOUNCER_BINARY=$(CURDIR)/.build/tsan/debug/bouncer $(SANITIZED_TEST) --filter 'BlackBoxTests|BouncerKitTests'
	$(LIMITED_SANITIZED) $(TSAN_ENV) $(ABUSE_UNDER_SANITIZER) --binary .build/tsan/debug/bouncer
	@$(CHECK_SANITIZER_LOGS)

# What `make test` runs of the above: the in-process tests under each sanitizer.
sanitize-short: deps
	@scripts/ensure-packages.sh $(TEST_PACKAGES)
	scripts/with-postgres.sh $(MAKE) --no-print-directory sanitize-short-steps

sanitize-short-steps:
	rm -rf $(SANITIZER_LOGS) && mkdir -p $(SANITIZER_LOGS)
	$(SWIFT) build --build-tests --sanitize=address --scratch-path .build/asan
	$(call unit-tests,$(ASAN_ENV) $(SANITIZED_TEST) --sanitize=address --scratch-path .build/asan)
	$(SWIFT) build --build-tests --sanitize=thread --scratch-path .build/tsan
	$(call unit-tests,$(TSAN_ENV) $(SANITIZED_TEST) --sanitize=thread --scratch-path .build/tsan)
	@$(CHECK_SANITIZER_LOGS)

docker-smoke:
	bash docker/smoke-test.sh
	bash docker/smoke-test-cluster.sh
	bash docker/smoke-test-ha.sh

clean:
	rm -rf .build
