import BouncerApplication
import BouncerIdentity
import BouncerLocalization
import BouncerModeration
import BouncerPostgres
import BouncerSQLite
import BouncerStore
import Foundation
import HTTPServer

/// The running service: store, routes and HTTP server, built by one function that `main` and the
/// tests share.
public final class Application: Sendable {
    public let configuration: ServiceConfiguration
    public let logger: Logger
    public let store: any ServiceStore
    public let server: HTTPServer
    /// Puts in force what other instances change, when they share the store.
    let changes: ChangeFollower?
    let eventPruner: EventPruner
    let eventFeed: EventFeed
    let webhooks: WebhookDispatcher
    let judge: MessageJudge
    let classifiers: ClassifierService
    /// Every route with who may call it, as served.
    let routeTable: [Routes.Entry]

    init(configuration: ServiceConfiguration, logger: Logger, store: any ServiceStore, server: HTTPServer, changes: ChangeFollower?,
         eventPruner: EventPruner, eventFeed: EventFeed, webhooks: WebhookDispatcher, judge: MessageJudge, classifiers: ClassifierService,
         routeTable: [Routes.Entry]) {
        self.configuration = configuration
        self.logger = logger
        self.store = store
        self.server = server
        self.changes = changes
        self.eventPruner = eventPruner
        self.eventFeed = eventFeed
        self.webhooks = webhooks
        self.judge = judge
        self.classifiers = classifiers
        self.routeTable = routeTable
    }

    /// Starts listening; returns the bound port.
    @discardableResult
    public func start() throws -> Int {
        let port = try server.start()
        webhooks.start()
        judge.start()
        logger.info("listening", ["address": .string("http://\(configuration.host):\(port)"), "host": .string(configuration.host),
                                  "port": .int(port), "store": .string(store.location), "version": .string(BouncerVersion.current)])
        logger.flush()
        return port
    }

    /// Stops accepting, lets in-flight requests finish, then closes the store.
    public func shutdown() async {
        logger.info("shutting down", ["open_connections": .int(server.openConnections)])
        await server.shutdown(gracePeriod: configuration.shutdownGracePeriod)
        changes?.stop()
        eventPruner.stop()
        eventFeed.stop()
        webhooks.stop()
        await judge.stop()
        classifiers.stop()
        store.close()
        logger.info("stopped")
        logger.flush()
    }
}

public enum ApplicationError: Error, CustomStringConvertible {
    case migrationsNotFound([URL])

    public var description: String {
        switch self {
        case .migrationsNotFound(let places):
            "cannot find the migrations directory; looked in: " + places.map(\.path).joined(separator: ", ")
                + " (set BOUNCER_MIGRATIONS_DIR)"
        }
    }
}

/// Loads the migration files of the configured store, from the directory the configuration
/// names or found beside the binary: SQLite's are its files, PostgreSQL's its `postgres/`.
public func loadMigrations(_ configuration: ServiceConfiguration) throws -> [Migration] {
    guard let directory = MigrationsDirectory.locate(explicit: configuration.migrationsDirectory) else {
        throw ApplicationError.migrationsNotFound(MigrationsDirectory.candidates(explicit: configuration.migrationsDirectory))
    }
    return try Migration.load(directory: configuration.databaseURL == nil ? directory : directory.appendingPathComponent("postgres"))
}

/// Opens the store (applying migrations) and wires the routes into a server, not yet started.
public func buildApplication(_ configuration: ServiceConfiguration, logger: Logger) async throws -> Application {
    let secret = try configuration.loadSigningSecret()
    logger.info("token secret", ["source": .string(describe(secret.source))])
    for warning in secret.warnings { logger.warn(warning) }
    let fileOverrides = try configuration.localizationDirectory.map { try Localization.loadDirectory($0, logger: logger) } ?? [:]
    let metrics = Metrics.service()
    let availability = StoreAvailability(logger: logger, metrics: metrics)
    let store = try openStore(configuration, availability: availability, metrics: metrics, logger: logger)
    let localization = Localization(fileOverrides: fileOverrides, apiOverrides: try await store.allOverrides(),
                                    defaultLocale: configuration.defaultLocale, repository: store)
    let compiledRules = CompiledDatabaseFiles(directory: URL(fileURLWithPath: configuration.dataDirectory).appendingPathComponent("rules-cache"),
                                              logger: logger)
    let rules = try await Rules(repository: store, databaseStore: compiledRules, logger: logger, metrics: metrics)
    let sendLimiter = RateLimiter(rate: configuration.sendRatePerUser)
    var defaults = Settings()
    defaults.send_rate_per_user = configuration.sendRatePerUser
    defaults.default_locale = localization.catalog.defaultLocale
    let settings = try await LiveSettings(repository: store, defaults: defaults, localization: localization, sendLimiter: sendLimiter,
                                          rules: rules)
    let bans = try await BanList(repository: store)
    // A quarter of the connections at most may be event streams, and eight of one identity's:
    // streams last, and must not take the connections requests need.
    let eventFeed = EventFeed(repository: store, logger: logger, heartbeatInterval: configuration.eventHeartbeat,
                              limits: EventFeed.Limits(perIdentity: 8, total: max(1, configuration.limits.maxConnections / 4)))
    metrics.gauge("bouncer_event_streams", "Event streams (GET /v1/events/stream) open now.") { Double(eventFeed.streamCount) }
    let classifiers = ClassifierService(configured: try configuration.loadHarmModel(), store: store, audit: Audit(repository: store), logger: logger,
                                        options: ClassifierService.Options(baseData: configuration.harmTrainingData))
    try await classifiers.load()
    let judge = MessageJudge(rules: rules, classifier: classifiers.classifier, store: store, metrics: metrics, logger: logger)
    let routes = makeRoutes(store: store, localization: localization, rules: rules, judge: judge, classifiers: classifiers, settings: settings,
                            bans: bans, metrics: metrics,
                            authenticator: Authenticator(verifier: TokenVerifier(secret: secret.key), logger: logger), eventFeed: eventFeed,
                            webhookAllowPrivate: configuration.webhookAllowPrivate,
                            sendLimiter: sendLimiter, availability: availability,
                            backupDirectory: URL(fileURLWithPath: configuration.dataDirectory).appendingPathComponent("backups").path,
                            integrations: configuration.integrations, logger: logger)
    let events = ServerEvents(
        requestCompleted: { entry in
            metrics.requestCompleted(route: entry.route ?? "unmatched", method: entry.method, status: entry.status,
                                     seconds: entry.duration / .seconds(1))
            logger.request(entry)
        },
        failure: { message, requestID in
            logger.error(message, ["request_id": .string(requestID ?? "-")])
        })
    let server = HTTPServer(
        configuration: {
            var server = HTTPServer.Configuration(host: configuration.host, port: configuration.port, limits: configuration.limits)
            if let loops = configuration.eventLoops { server.eventLoopCount = loops }
            if let poll = configuration.eventLoopPoll { server.pollBeforeSleep = poll }
            return server
        }(),
        router: routes.router,
        problemRenderer: IntegrationProblemRenderer(base: LocalizedProblemRenderer(localization: localization, availability: availability)),
        events: events)
    metrics.gauge("bouncer_open_connections", "Client connections open now.") { Double(server.openConnections) }
    // Instances sharing a store are level when these agree.
    metrics.gauge("bouncer_rules_version", "Version of the rules in force here (advanced by each change).") { Double(rules.version) }
    metrics.gauge("bouncer_settings_version", "Version of the settings in force here.") { Double(settings.version) }
    metrics.gauge("bouncer_overrides_version", "Version of the localization overrides in force here.") { Double(localization.version) }
    metrics.gauge("bouncer_bans_version", "Version of the bans in force here.") { Double(bans.version) }
    metrics.gauge("bouncer_classifier_version", "Version of the harm-score classifier in force here.") { Double(classifiers.version) }
    let changes = ChangeFollower(.init(store: store, rules: rules, settings: settings, localization: localization, bans: bans,
                                       classifiers: classifiers),
                                 logger: logger, metrics: metrics)
    let eventPruner = EventPruner(repository: store, retention: configuration.eventRetention, logger: logger)
    var webhookLimits = WebhookDispatcher.Limits()
    webhookLimits.firstRetry = configuration.webhookFirstRetry
    let integrations = configuration.integrations
    let matrix = integrations.matrixFeedbackEnabled
        ? MatrixHomeserver(baseURL: integrations.matrixHomeserverURL!, accessToken: integrations.matrixAccessToken!, rooms: store, metrics: metrics)
        : nil
    try await MatrixHomeserver.ensureWebhook(store, homeserver: matrix?.baseURL)
    let webhooks = WebhookDispatcher(repository: store, sender: WebhookSender(allowPrivate: configuration.webhookAllowPrivate), matrix: matrix,
                                     limits: webhookLimits, logger: logger, metrics: metrics)
    metrics.gauge("bouncer_webhook_deliveries_in_flight", "Webhook deliveries being attempted now.") { Double(webhooks.deliveriesInFlight) }
    return Application(configuration: configuration, logger: logger, store: store, server: server, changes: changes,
                       eventPruner: eventPruner, eventFeed: eventFeed, webhooks: webhooks, judge: judge, classifiers: classifiers,
                       routeTable: routes.table)
}

/// The store the configuration names: PostgreSQL at `databaseURL` (its migrations are the
/// migrations directory's `postgres/`), else SQLite in the data directory, whose commit groups
/// feed the store's metrics.
func openStore(_ configuration: ServiceConfiguration, availability: StoreAvailability, metrics: Metrics,
               logger: Logger) throws -> any ServiceStore {
    let migrations = try loadMigrations(configuration)
    // Both stores report each group the same way.
    @Sendable func committed(_ report: CommitReport) {
        if report.error == nil { availability.committed() }
        metrics.observe(ServiceMetric.commitBatchSize, Double(report.size))
        metrics.observe(ServiceMetric.commitDuration, report.duration / .seconds(1))
        if let checkpoint = report.checkpoint {
            metrics.observe(ServiceMetric.checkpointDuration, checkpoint.duration / .seconds(1))
            metrics.set(ServiceMetric.walFrames, Double(checkpoint.logFrames))
            metrics.set(ServiceMetric.walCheckpointedFrames, Double(checkpoint.checkpointedFrames))
        }
        for failure in report.hookFailures where failure.hook == ChannelIndex.hookName {
            metrics.add(ServiceMetric.channelCopyFailures)
            logger.warn("copying new messages into channel_messages failed; the next batch tries again",
                        ["error": .string(String(describing: failure.error))])
        }
    }
    if let url = configuration.databaseURL {
        return try PostgresStore(url: url, listenURL: configuration.databaseListenURL, configuration: configuration.store,
                                 migrations: migrations, onCommit: committed)
    }
    return try SQLiteStore(path: configuration.storePath, configuration: configuration.store, migrations: migrations, onCommit: committed)
}

private func describe(_ source: SigningSecret.Source) -> String {
    switch source {
    case .environment: "BOUNCER_JWT_SECRET"
    case .file(let path): path
    case .generated(let path): path
    }
}

/// Every route of the service, with who may call it. Every part is given, none made here: a part
/// left out would be a second judge, feed or set of metrics, apart from the service's own.
func makeRoutes(store: any ServiceStore, localization: Localization, rules: Rules, judge: MessageJudge, classifiers: ClassifierService,
                settings: LiveSettings, bans: BanList,
                metrics: Metrics, authenticator: Authenticator, eventFeed: EventFeed, webhookAllowPrivate: Bool, sendLimiter: RateLimiter,
                availability: StoreAvailability, backupDirectory: String, integrations: Integrations, logger: Logger) -> Routes {
    var routes = Routes(authenticator: authenticator, sendLimiter: sendLimiter, sharedSendRates: store.sharedSendRates)
    let audit = Audit(repository: store)
    OperationsRoutes(health: store, flags: store, metrics: metrics, availability: availability).register(in: &routes)
    IdentityRoutes().register(in: &routes)
    DashboardRoutes(localization: localization).register(in: &routes)
    LocalizationRoutes(localization: localization, audit: audit).register(in: &routes)
    RulesRoutes(rules: rules, judge: judge, audit: audit, maxMessageLength: { settings.value.max_message_length }).register(in: &routes)
    RuleStatsRoutes(repository: store, hits: judge.hits).register(in: &routes)
    DryRunRoutes(runner: DryRunner(rules: rules, classifier: judge.classifier, history: store, sendsSoFar: { judge.messagesJudged }, logger: authenticator.logger))
        .register(in: &routes)
    SettingsRoutes(settings: settings, audit: audit).register(in: &routes)
    ClassifierRoutes(service: classifiers, maxTextLength: { settings.value.max_message_length }).register(in: &routes)
    let scoring = HarmScoring(classifier: classifiers.classifier, rules: rules)
    PerspectiveRoutes(scoring: scoring, localization: localization, metrics: metrics).register(in: &routes)
    OpenAIModerationRoutes(scoring: scoring, localization: localization, metrics: metrics).register(in: &routes)
    let messages = MessageService(store: store, judge: judge, settings: settings, events: localization.messageEvents, bans: bans,
                                  audit: audit, metrics: metrics)
    MessagesRoutes(service: messages, localization: localization).register(in: &routes)
    let integration = IntegrationContext(integrations: integrations, messages: messages, bans: bans, sendLimiter: sendLimiter,
                                         sharedSendRates: store.sharedSendRates, localization: localization, metrics: metrics,
                                         availability: availability, logger: logger)
    MatrixRoutes(context: integration, rooms: MatrixRooms(repository: store, logger: logger)).register(in: &routes)
    StreamRoutes(context: integration).register(in: &routes)
    ModeratorRoutes(repository: store, bans: bans, audit: audit, backupDirectory: backupDirectory).register(in: &routes)
    FlagRoutes(repository: store, settings: settings, localization: localization, audit: audit,
               reviews: ReviewService(repository: store, settings: settings, events: localization.messageEvents, bans: bans))
        .register(in: &routes)
    AppealRoutes(repository: store, settings: settings, localization: localization, audit: audit,
                 limiter: AppealRoutes.makeLimiter(), sharedRates: store.sharedSendRates,
                 decisions: AppealService(repository: store, settings: settings, events: localization.messageEvents, bans: bans))
        .register(in: &routes)
    EventRoutes(repository: store, feed: eventFeed).register(in: &routes)
    WebhookRoutes(repository: store, audit: audit, allowPrivate: webhookAllowPrivate).register(in: &routes)
    return routes
}
