import BouncerApplication
import BouncerSQLite
import BouncerService
import BouncerStore
import Dispatch
import Foundation

/// `bouncer serve`: runs the service until SIGTERM or SIGINT.
enum ServeCommand {
    static let storeOptions: [OptionSpec] = [
        OptionSpec(name: "data-dir", environment: "BOUNCER_DATA_DIR", valueName: "DIR",
                   help: "where the store lives (default ./data; the file is bouncer.sqlite3)"),
        OptionSpec(name: "database-url", environment: "BOUNCER_DATABASE_URL", valueName: "URL",
                   help: "a PostgreSQL database (postgres://user:password@host:port/database) instead of the embedded store; "
                       + "several instances may share it"),
        OptionSpec(name: "migrations-dir", environment: "BOUNCER_MIGRATIONS_DIR", valueName: "DIR",
                   help: "the migration files (default: beside the binary, or the source tree's)"),
    ]

    static let secretOptions: [OptionSpec] = [
        OptionSpec(name: "jwt-secret-file", environment: nil, valueName: "FILE",
                   help: "file holding the token secret (else BOUNCER_JWT_SECRET holds the secret itself; "
                       + "with neither, one is generated into <data-dir>/jwt-secret)"),
    ]

    static let options: [OptionSpec] = [
        OptionSpec(name: "host", environment: "BOUNCER_HOST", valueName: "ADDRESS", help: "address to listen on (default 127.0.0.1)"),
        OptionSpec(name: "port", environment: "BOUNCER_PORT", valueName: "PORT", help: "port to listen on (default 8080; 0 picks one)"),
    ] + storeOptions + [
        OptionSpec(name: "database-listen-url", environment: "BOUNCER_DATABASE_LISTEN_URL", valueName: "URL",
                   help: "with --database-url through a pooler in transaction mode (PgBouncer): the database itself, "
                       + "for what needs a session of its own (the LISTEN for other instances' changes, pg_dump for backups)"),
    ] + secretOptions + [
        OptionSpec(name: "localization-dir", environment: "BOUNCER_LOCALIZATION_DIR", valueName: "DIR",
                   help: "<locale>.lproj/Localizable.strings files that override the bundled texts"),
        OptionSpec(name: "harm-model", environment: "BOUNCER_HARM_MODEL", valueName: "MODEL",
                   help: "the harm-score model at start: `bundled` (default, English toxicity), a model file from `bouncer train`, or `none` to score nothing (a version activated through the API replaces it)"),
        OptionSpec(name: "harm-training-data", environment: "BOUNCER_HARM_TRAINING_DATA", valueName: "FILE",
                   help: "a labelled file (CSV `label,text`, or JSON lines) that every training through POST /v1/classifiers/train includes"),
        OptionSpec(name: "default-locale", environment: "BOUNCER_DEFAULT_LOCALE", valueName: "TAG",
                   help: "the locale of requests that ask for none Bouncer has (default en)"),
        OptionSpec(name: "log-level", environment: "BOUNCER_LOG_LEVEL", valueName: "LEVEL", help: "trace, debug, info, notice, warning (or warn), error or critical (default info)"),
        OptionSpec(name: "synchronous", environment: "BOUNCER_SYNCHRONOUS", valueName: "MODE",
                   help: "FULL (default: every commit synced) or NORMAL (faster; may lose the last commits on power loss)"),
        OptionSpec(name: "max-connections", environment: "BOUNCER_MAX_CONNECTIONS", valueName: "N", help: "open connections at most (default 10000)"),
        OptionSpec(name: "event-loops", environment: "BOUNCER_EVENT_LOOPS", valueName: "N",
                   help: "threads serving connections (default one a core; fewer leaves cores to a proxy or other work beside it)"),
        OptionSpec(name: "event-loop-poll-microseconds", environment: "BOUNCER_EVENT_LOOP_POLL_MICROSECONDS", valueName: "N",
                   help: "how long a busy event loop looks for more requests before it sleeps, while looking pays (default 10; 0 sleeps at once)"),
        OptionSpec(name: "send-rate-per-user", environment: "BOUNCER_SEND_RATE_PER_USER", valueName: "N",
                   help: "messages a second each user may send, bursts of twice that (default 10; 0 turns it off)"),
        OptionSpec(name: "max-body-bytes", environment: "BOUNCER_MAX_BODY_BYTES", valueName: "N", help: "largest request body (default 1048576)"),
        OptionSpec(name: "header-timeout", environment: "BOUNCER_HEADER_TIMEOUT", valueName: "SECONDS",
                   help: "time a client has to send a request head, and an idle body (default 10)"),
        OptionSpec(name: "idle-timeout", environment: "BOUNCER_IDLE_TIMEOUT", valueName: "SECONDS",
                   help: "time an idle keep-alive connection is kept open (default 60)"),
        OptionSpec(name: "event-retention-days", environment: "BOUNCER_EVENT_RETENTION_DAYS", valueName: "DAYS",
                   help: "how long events are kept for GET /v1/events (default 7)"),
        OptionSpec(name: "webhook-allow-private", environment: "BOUNCER_WEBHOOK_ALLOW_PRIVATE", valueName: nil,
                   help: "take loopback and private addresses as webhook URLs"),
        OptionSpec(name: "webhook-retry-seconds", environment: "BOUNCER_WEBHOOK_RETRY_SECONDS", valueName: "SECONDS",
                   help: "wait before a failed webhook delivery's first retry; each later one waits three times longer (default 5)"),
        OptionSpec(name: "event-heartbeat-seconds", environment: "BOUNCER_EVENT_HEARTBEAT_SECONDS", valueName: "SECONDS",
                   help: "how often an event stream with nothing to send sends a comment line (default 15)"),
        OptionSpec(name: "matrix-secret", environment: "BOUNCER_MATRIX_SECRET", valueName: "SECRET",
                   help: "turns on /v1/integrations/matrix for Synapse's synapse-http-antispam module, which sends it as its bearer token"),
        OptionSpec(name: "matrix-fail-open", environment: "BOUNCER_MATRIX_FAIL_OPEN", valueName: nil,
                   help: "allow a Matrix message the store cannot take (default: refuse it with 503)"),
        OptionSpec(name: "matrix-homeserver-url", environment: "BOUNCER_MATRIX_HOMESERVER_URL", valueName: "URL",
                   help: "the homeserver that moderators' removals and bans go back to (with --matrix-access-token)"),
        OptionSpec(name: "matrix-access-token", environment: "BOUNCER_MATRIX_ACCESS_TOKEN", valueName: "TOKEN",
                   help: "a bot account's access token, with the power to redact and ban in the moderated rooms"),
        OptionSpec(name: "stream-api-key", environment: "BOUNCER_STREAM_API_KEY", valueName: "KEY",
                   help: "the Stream app's API key (with --stream-api-secret, turns on /v1/integrations/stream/before-message-send)"),
        OptionSpec(name: "stream-api-secret", environment: "BOUNCER_STREAM_API_SECRET", valueName: "SECRET",
                   help: "the Stream app's API secret, which signs its hook requests"),
        OptionSpec(name: "help", environment: nil, valueName: nil, help: "show this help"),
    ]

    static let help = """
        Usage: bouncer serve [options]

        Serves the Bouncer HTTP API. Applies pending migrations first. SIGTERM or SIGINT stops
        accepting, finishes requests in flight and exits 0.

        Options:
        \(optionsHelp(options))
        """

    static func configuration(from parsed: ParsedOptions) throws -> ServiceConfiguration {
        var configuration = ServiceConfiguration()
        if let host = parsed.values["host"] { configuration.host = host }
        if let port = try parsed.int("port", in: 0...65535) { configuration.port = port }
        applyStoreOptions(parsed, to: &configuration)
        applySecretOptions(parsed, to: &configuration)
        configuration.localizationDirectory = parsed.values["localization-dir"]
        if let locale = parsed.values["default-locale"] { configuration.defaultLocale = locale }
        if let model = parsed.values["harm-model"] { configuration.harmModel = model }
        if let data = parsed.values["harm-training-data"] { configuration.harmTrainingData = data }
        if let name = parsed.values["log-level"] {
            guard let level = Logger.Level(name: name) else {
                throw UsageError(description: "--log-level must be one of \(Logger.Level.acceptedNames), not \(name)")
            }
            configuration.logLevel = level
        }
        if let mode = parsed.values["synchronous"] {
            guard let synchronous = StoreConfiguration.Synchronous(rawValue: mode.uppercased()) else {
                throw UsageError(description: "--synchronous must be FULL or NORMAL, not \(mode)")
            }
            configuration.store.synchronous = synchronous
        }
        if let cap = try parsed.int("max-connections", in: 1...1_000_000) { configuration.limits.maxConnections = cap }
        if let loops = try parsed.int("event-loops", in: 1...256) { configuration.eventLoops = loops }
        if let poll = try parsed.int("event-loop-poll-microseconds", in: 0...1000) { configuration.eventLoopPoll = .microseconds(poll) }
        if let rate = try parsed.int("send-rate-per-user", in: 0...1_000_000) { configuration.sendRatePerUser = Double(rate) }
        if let bytes = try parsed.int("max-body-bytes", in: 1...(64 * 1024 * 1024)) { configuration.limits.maxBodyBytes = bytes }
        if let seconds = try parsed.int("header-timeout", in: 1...3600) {
            configuration.limits.headerTimeout = .seconds(seconds)
            configuration.limits.bodyIdleTimeout = .seconds(seconds)
        }
        if let seconds = try parsed.int("idle-timeout", in: 1...86_400) { configuration.limits.keepAliveIdleTimeout = .seconds(seconds) }
        if let days = try parsed.int("event-retention-days", in: 1...3650) { configuration.eventRetention = .seconds(days * 86_400) }
        if let seconds = try parsed.int("event-heartbeat-seconds", in: 1...300) { configuration.eventHeartbeat = .seconds(seconds) }
        configuration.webhookAllowPrivate = parsed.flags.contains("webhook-allow-private")
        if let seconds = try parsed.int("webhook-retry-seconds", in: 1...3600) { configuration.webhookFirstRetry = .seconds(seconds) }
        configuration.integrations.matrixSecret = parsed.values["matrix-secret"]
        configuration.integrations.matrixFailOpen = parsed.flags.contains("matrix-fail-open")
        configuration.integrations.matrixHomeserverURL = parsed.values["matrix-homeserver-url"]
        configuration.integrations.matrixAccessToken = parsed.values["matrix-access-token"]
        if let url = configuration.integrations.matrixHomeserverURL, !url.isEmpty {
            guard let parsedURL = URL(string: url), ["http", "https"].contains(parsedURL.scheme ?? ""), parsedURL.host != nil else {
                throw UsageError(description: "--matrix-homeserver-url must be an http or https URL, not \(url)")
            }
            guard !(configuration.integrations.matrixAccessToken ?? "").isEmpty else {
                throw UsageError(description: "--matrix-homeserver-url needs --matrix-access-token (a bot account's token)")
            }
        }
        configuration.integrations.streamAPIKey = parsed.values["stream-api-key"]
        configuration.integrations.streamAPISecret = parsed.values["stream-api-secret"]
        if configuration.databaseListenURL != nil && configuration.databaseURL == nil {
            throw UsageError(description: "--database-listen-url goes with --database-url")
        }
        if (configuration.integrations.streamAPIKey ?? "").isEmpty != (configuration.integrations.streamAPISecret ?? "").isEmpty {
            throw UsageError(description: "--stream-api-key and --stream-api-secret go together")
        }
        return configuration
    }

    static func applyStoreOptions(_ parsed: ParsedOptions, to configuration: inout ServiceConfiguration) {
        if let directory = parsed.values["data-dir"] { configuration.dataDirectory = directory }
        if let url = parsed.values["database-url"], !url.isEmpty { configuration.databaseURL = url }
        if let url = parsed.values["database-listen-url"], !url.isEmpty { configuration.databaseListenURL = url }
        if let directory = parsed.values["migrations-dir"] { configuration.migrationsDirectory = directory }
    }

    /// The secret's file from the flag, the secret itself from the environment.
    static func applySecretOptions(_ parsed: ParsedOptions, to configuration: inout ServiceConfiguration,
                                   environment: [String: String] = ProcessInfo.processInfo.environment) {
        configuration.jwtSecretFile = parsed.values["jwt-secret-file"]
        configuration.jwtSecret = environment["BOUNCER_JWT_SECRET"]
    }

    static func run(_ arguments: [String]) async throws -> Int32 {
        guard let parsed = try ParsedOptions.forCommand(arguments, specs: options, help: help) else { return 0 }
        let configuration = try configuration(from: parsed)
        let logger = Logger(level: configuration.logLevel)
        // Taken over before listening, so a SIGTERM that follows the startup line at once is a
        // graceful shutdown, not the default kill.
        let signals = TerminationSignals()
        let application: Application
        do {
            application = try await buildApplication(configuration, logger: logger)
            try application.start()
        } catch {
            logger.error("cannot start", ["reason": .string(String(describing: error))])
            logger.flush()
            return 1
        }
        let signal = await signals.next()
        logger.info("signal received", ["signal": .string(signal == SIGTERM ? "SIGTERM" : "SIGINT")])
        await application.shutdown()
        return 0
    }
}

/// SIGTERM and SIGINT, taken from their default (killing) action and delivered as values.
private final class TerminationSignals: @unchecked Sendable {
    // Touched only on `queue`.
    private let queue = DispatchQueue(label: "bouncer.signals")
    private var sources: [DispatchSourceSignal] = []
    private var received: [Int32] = []
    private var waiter: CheckedContinuation<Int32, Never>?

    init() {
        for number in [SIGTERM, SIGINT] {
            Foundation.signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { [unowned self] in deliver(number) }
            source.activate()
            sources.append(source)
        }
    }

    func next() async -> Int32 {
        await withCheckedContinuation { continuation in
            queue.async { [self] in
                if received.isEmpty {
                    waiter = continuation
                } else {
                    continuation.resume(returning: received.removeFirst())
                }
            }
        }
    }

    private func deliver(_ number: Int32) {
        if let waiter {
            self.waiter = nil
            waiter.resume(returning: number)
        } else {
            received.append(number)
        }
    }
}
